import type { AuditEntryInput } from '@agentgov/core';
import { InMemoryAuditStore, InMemorySecretStore, ManualClock } from '@agentgov/core';
import { generateAuditKeys } from '../src/index';
import { createAuditLog } from '../src/log';

export const KEYS = await generateAuditKeys();

export function secrets(): InMemorySecretStore {
  return new InMemorySecretStore({
    'audit-commitment-key': KEYS.commitmentKey,
    'audit-signing-key': KEYS.signingKey,
  });
}

export function entryInput(overrides: Partial<AuditEntryInput> = {}): AuditEntryInput {
  return {
    tenantId: 't1',
    userId: 'alice',
    actionType: 'tool_invocation',
    actionDetail: { tool: 'tracker_update', ticketId: 'ABC-1' },
    policyApplied: 'default',
    policyResult: 'allow',
    outcome: 'success',
    requestId: 'req-1',
    ...overrides,
  };
}

export function setup(store = new InMemoryAuditStore()) {
  const clock = new ManualClock('2026-01-01T00:00:00Z');
  const s = secrets();
  const log = createAuditLog({ store, secrets: s, clock });
  return { store, clock, secrets: s, log };
}
