/**
 * The unit of work: several store writes that commit together or not at all — a policy and its
 * `policy_change` audit entry, a connector and its `tool_invocation` entry, a GDPR erasure and the
 * entry recording it. Services get the stores of one transaction; whatever they write through them
 * is committed when the work resolves and rolled back when it throws.
 */
import type { Result } from 'neverthrow';
import type { AuditSink, AuditStore } from '../audit/port';
import type { ConnectorStore } from '../connector/port';
import { GovernanceError } from '../errors';
import type { OrgDirectory } from '../org-directory/port';
import type { PolicyStore } from '../policy/port';
import type { TenantStore } from '../tenant/port';

/** The stores bound to one transaction (reads through them see the transaction's own writes). */
export interface TransactionStores {
  policies: PolicyStore;
  audit: AuditStore;
  connectors: ConnectorStore;
  tenants: TenantStore;
  /** Read inside the transaction (PGlite has one session: a read outside it would wait for it). */
  directory: OrgDirectory;
}

export interface TransactionOptions {
  /**
   * Transactions naming the same lock run one at a time, also across processes sharing the
   * database (PostgreSQL: a transaction-scoped advisory lock; memory: a per-key queue). E.g.
   * `policies:<tenant>`, so two writes cannot both validate against a stale policy tree.
   */
  lock?: string;
}

export interface UnitOfWork {
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (stores: TransactionStores) => Promise<T>, options?: TransactionOptions): Promise<T>;
}

/** The stores of a transaction plus an AuditSink that appends into it. */
export interface AuditedTransaction extends TransactionStores {
  sink: AuditSink;
}

/** What a service is given: runs work in one transaction with an audit sink writing into it. */
export type RunAudited = <T>(
  work: (tx: AuditedTransaction) => Promise<T>,
  options?: TransactionOptions,
) => Promise<T>;

/**
 * Binds an audit sink to each transaction: `sinkOver(tx.audit)` (e.g. `(store) =>
 * createAuditLog({ store, secrets, ids })` of `@agentgov/audit`) — so the entry is hashed onto the
 * chain inside the same transaction as the write it records.
 */
export function auditedTransactions(uow: UnitOfWork, sinkOver: (store: AuditStore) => AuditSink): RunAudited {
  return (work, options) =>
    uow
      .transaction((stores) => work({ ...stores, sink: sinkOver(stores.audit) }), options)
      .catch((error: unknown) => {
        // As `guardPort` does for a port: a failing database is the spec's 503, not a 500.
        if (error instanceof GovernanceError || error instanceof RollbackWith) throw error;
        throw new GovernanceError('service_unavailable', 'The database is unavailable', { cause: error });
      });
}

class RollbackWith {
  constructor(readonly result: Result<unknown, unknown>) {}
}

/**
 * For services that return `Result`s: an `err` result rolls the transaction back (and is
 * returned as it is); an `ok` one commits.
 */
export async function transactionResult<T, E>(
  run: RunAudited,
  work: (tx: AuditedTransaction) => Promise<Result<T, E>>,
  options?: TransactionOptions,
): Promise<Result<T, E>> {
  try {
    return await run(async (tx) => {
      const result = await work(tx);
      if (result.isErr()) throw new RollbackWith(result);
      return result;
    }, options);
  } catch (error) {
    if (error instanceof RollbackWith) return error.result as Result<T, E>;
    throw error;
  }
}
