/**
 * AuditService: the read side of the audit-enterprise plugin plus GDPR erasure. Every read is
 * scoped by the caller's visibility (`{tenantId, userIds?}`, computed by the gateway): a user
 * sees only their own entries, an org admin a list of users, an enterprise admin the tenant.
 * There is no update and no delete.
 */
import {
  type AuditEntry,
  type AuditFilter,
  type AuditSink,
  type AuditStore,
  type CallOptions,
  type GovernanceError,
  guardResult,
  NotFoundError,
  type PolicyResult,
  type RunAudited,
  transactionResult,
  ValidationError,
} from '@agentgov/core';
import { err, ok, type Result } from 'neverthrow';
import { exportStream } from './export';
import { type AuditLog, type AuditLogOptions, createAuditLog } from './log';
import { parseAuditExportQuery, parseAuditQuery } from './query';
import { ANONYMIZED_PREFIX, anonymizedPlaceholder } from './records';
import { type VerifyOptions, type VerifyReport, verifyTenant } from './verify';

/** What the caller may read: one tenant, optionally only some users' entries. */
export interface AuditVisibility {
  tenantId: string;
  /** When present, only entries whose userId is listed (users: themselves; org admins: their org). */
  userIds?: readonly string[];
}

export interface AuditPage {
  entries: AuditEntry[];
  total: number;
  /**
   * The position of the log the page was read at (the query's `snapshot`, else the head when it
   * was read; 0 for an empty log): passed back as `snapshot`, the next pages neither repeat nor
   * skip an entry. GET /audit answers it as the `X-Audit-Snapshot` header, outside the body.
   */
  snapshot: number;
}

export interface AuditExport {
  format: 'json' | 'csv';
  /** Response headers: Content-Type, and for CSV the spec's Content-Disposition. */
  headers: Record<string, string>;
  body: ReadableStream<Uint8Array>;
}

export interface ErasureActor {
  tenantId: string;
  /** Who performs the erasure (recorded, committed, in the erasure entry). */
  userId: string;
  requestId: string;
  /** Policy recorded as applied (default `gdpr-erasure`). */
  policyApplied?: string;
  policyResult?: PolicyResult;
}

export interface ErasureResult {
  /** The audit entry recording the erasure (written before the records are rewritten). */
  entry: AuditEntry;
  /** The placeholder that replaced the user id: `anon:` + 16 hex digits of its commitment. */
  placeholder: string;
  /** Records whose clear identifiers were replaced. */
  recordsAnonymized: number;
}

export interface AuditService {
  readonly log: AuditLog;
  /** GET /audit: raw query object (strings) → `{entries, total}`, newest first by default. */
  query(visibility: AuditVisibility, rawQuery: unknown): Promise<Result<AuditPage, GovernanceError>>;
  /** GET /audit/{id}: NOT_FOUND also when the entry exists but is not visible to the caller. */
  get(visibility: AuditVisibility, id: string): Promise<Result<AuditEntry, GovernanceError>>;
  /** GET /audit/export: a streamed JSON or CSV body over the entries as of the call. */
  export(
    visibility: AuditVisibility,
    rawQuery: unknown,
    options?: CallOptions,
  ): Promise<Result<AuditExport, GovernanceError>>;
  /**
   * GDPR erasure by anonymization: audits the erasure (actionType data_access,
   * actionDetail {operation: 'gdpr_erasure', subject: placeholder}), then replaces every clear
   * occurrence of the user id in the tenant's records with the placeholder. Nothing is deleted
   * and the chain still verifies. Idempotent: a retry rewrites what is left.
   */
  anonymizeUser(
    actor: ErasureActor,
    userId: string,
    options?: CallOptions,
  ): Promise<Result<ErasureResult, GovernanceError>>;
  /** Verifies the tenant's chain and checkpoints with this service's secrets. */
  verify(tenantId: string, options?: Omit<VerifyOptions, 'secrets'>): Promise<VerifyReport>;
}

function scoped(visibility: AuditVisibility, filter: AuditFilter): AuditFilter {
  return visibility.userIds === undefined ? filter : { ...filter, userIds: [...visibility.userIds] };
}

function visible(visibility: AuditVisibility, entry: AuditEntry): boolean {
  return visibility.userIds === undefined || visibility.userIds.includes(entry.userId);
}

export interface AuditServiceOptions extends AuditLogOptions {
  log?: AuditLog;
  /**
   * Runs a GDPR erasure — its `data_access` entry and the rewriting of the user's records — in one
   * transaction (`auditedTransactions(unitOfWork, …)`), so neither happens without the other.
   * Without it, a failure after the entry leaves an erasure recorded but not done.
   */
  transaction?: RunAudited;
}

export function createAuditService(options: AuditServiceOptions): AuditService {
  const store = options.store;
  const log = options.log ?? createAuditLog(options);

  return {
    log,

    query: (visibility, rawQuery) =>
      guardResult(async () => {
        const parsed = parseAuditQuery(rawQuery);
        if (parsed.isErr()) return err(parsed.error);
        const { filter, page, pageSize, order } = parsed.value;
        // The page and its total are of one snapshot: the query's, else the head as of now.
        const snapshot = parsed.value.snapshot ?? (await store.head(visibility.tenantId))?.seq ?? 0;
        const { records, total } = await store.query(
          visibility.tenantId,
          { ...scoped(visibility, filter), toSeq: snapshot },
          { offset: (page - 1) * pageSize, limit: pageSize, order },
        );
        return ok({ entries: records.map((r) => r.entry), total, snapshot });
      }),

    get: (visibility, id) =>
      guardResult(async () => {
        const record = await store.get(visibility.tenantId, id);
        if (!record || !visible(visibility, record.entry)) return err(new NotFoundError('Audit entry'));
        return ok(record.entry);
      }),

    export: (visibility, rawQuery, callOptions) =>
      guardResult(async () => {
        const parsed = parseAuditExportQuery(rawQuery);
        if (parsed.isErr()) return err(parsed.error);
        const { format, filter } = parsed.value;
        // Snapshot: entries appended after the export starts are not part of it.
        const head = await store.head(visibility.tenantId);
        const records = store.scan(visibility.tenantId, {
          filter: scoped(visibility, filter),
          toSeq: head?.seq ?? 0,
          batchSize: 1000,
          ...(callOptions?.signal ? { signal: callOptions.signal } : {}),
        });
        const headers: Record<string, string> =
          format === 'csv'
            ? {
                'Content-Type': 'text/csv; charset=utf-8',
                'Content-Disposition': 'attachment; filename=audit-export.csv',
              }
            : { 'Content-Type': 'application/json; charset=utf-8' };
        return ok({ format, headers, body: exportStream(records, format) });
      }),

    anonymizeUser: (actor, userId, callOptions) =>
      guardResult(async () => {
        if (typeof userId !== 'string' || userId.length === 0 || userId.length > 255) {
          return err(
            ValidationError.invalid('userId', 'must be a non-empty string of at most 255 characters'),
          );
        }
        if (userId.startsWith(ANONYMIZED_PREFIX)) {
          return err(ValidationError.invalid('userId', 'is already an anonymization placeholder'));
        }
        const commitment = await log.commitment(actor.tenantId, userId);
        if (commitment.isErr()) return err(commitment.error);
        const placeholder = anonymizedPlaceholder(commitment.value);
        const erase = async (sink: AuditSink, target: AuditStore) => {
          const entry = await sink.append(
            {
              tenantId: actor.tenantId,
              userId: actor.userId,
              actionType: 'data_access',
              actionDetail: { operation: 'gdpr_erasure', subject: placeholder },
              dataClassification: 'confidential',
              policyApplied: actor.policyApplied ?? 'gdpr-erasure',
              policyResult: actor.policyResult ?? 'allow',
              policyReason: 'GDPR erasure by anonymization',
              outcome: 'success',
              requestId: actor.requestId,
            },
            callOptions,
          );
          if (entry.isErr()) return err(entry.error);
          const recordsAnonymized = await target.anonymize(actor.tenantId, userId, placeholder);
          // Self-erasure: the erasure entry itself named the user and was just rewritten.
          const written = actor.userId === userId ? { ...entry.value, userId: placeholder } : entry.value;
          return ok({ entry: written, placeholder, recordsAnonymized });
        };
        const run = options.transaction;
        return run
          ? transactionResult(run, (tx) => erase(tx.sink, tx.audit), {
              lock: `audit-erasure:${actor.tenantId}`,
            })
          : erase(log, store);
      }),

    verify: (tenantId, verifyOptions = {}) =>
      verifyTenant(store, tenantId, {
        ...verifyOptions,
        secrets: options.secrets,
        ...(options.commitmentKeyRef ? { commitmentKeyRef: options.commitmentKeyRef } : {}),
        ...(options.signingKeyRef ? { signingKeyRef: options.signingKeyRef } : {}),
      }),
  };
}
