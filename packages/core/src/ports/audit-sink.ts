import type { Result } from 'neverthrow';
import type { GovernanceError } from '../errors';
import type { AuditEntry, AuditEntryInput } from '../resources';
import type { CallOptions } from './stores';

/**
 * Where a service writes its audit entries (e.g. the `policy_change` entry of PolicyService).
 * `@agentgov/audit`'s AuditLog implements it structurally; `InMemoryAuditSink` is for tests.
 */
export interface AuditSink {
  append(input: AuditEntryInput, options?: CallOptions): Promise<Result<AuditEntry, GovernanceError>>;
}
