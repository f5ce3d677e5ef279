/**
 * The one migration set shared by PostgreSQL and PGlite, as code objects (a kysely
 * `MigrationProvider`), so the built package never reads migration files at runtime.
 *
 * Every statement is unqualified: it runs in the store's schema because each connection's
 * `search_path` is that schema, and every function pins it with `SET search_path FROM CURRENT`
 * so triggers behave the same whichever session fires them.
 */
import type { Migration, MigrationProvider } from 'kysely';
import { initial } from './0001-initial';
import { stores } from './0002-stores';
import { workTracking } from './0003-work-tracking';
import { idempotency } from './0004-idempotency';
import { sessionActivity } from './0005-session-activity';
import { auditAppendLookups } from './0006-audit-append-lookups';
import { toolCallInbox } from './0007-tool-call-inbox';
import { connectorSync } from './0008-connector-sync';
import { auditLeaf } from './0009-audit-leaf';
import { auditAppendLeaves } from './0010-audit-append-leaves';
import { toolApprovalArguments } from './0011-tool-approval-arguments';
import { secretRefOwners } from './0012-secret-ref-owners';

/** Migration names, in order. */
export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001_initial': initial,
  '0002_stores': stores,
  '0003_work_tracking': workTracking,
  '0004_idempotency': idempotency,
  '0005_session_activity': sessionActivity,
  '0006_audit_append_lookups': auditAppendLookups,
  '0007_tool_call_inbox': toolCallInbox,
  '0008_connector_sync': connectorSync,
  '0009_audit_leaf': auditLeaf,
  '0010_audit_append_leaves': auditAppendLeaves,
  '0011_tool_approval_arguments': toolApprovalArguments,
  '0012_secret_ref_owners': secretRefOwners,
};

/** The migrations as a kysely `MigrationProvider` (code objects, no files). */
export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return { ...MIGRATIONS };
  },
};
