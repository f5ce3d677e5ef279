import {
  newId,
  type ToolApproval,
  type ToolApprovalDecision,
  type ToolApprovalKey,
  type ToolApprovalListFilter,
  type ToolApprovalRequest,
  type ToolApprovalStatus,
  type ToolCallInbox,
  type ToolNotice,
} from '@agentgov/core';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database, StoredRow, ToolApprovalsTable, ToolNoticesTable } from './schema';
import { isoFromText, isoText } from './sql-util';

/** A `tool_approvals` row as selected (its status as of `now` where a read computes it). */
type ApprovalRow = Omit<StoredRow<ToolApprovalsTable>, 'seq' | 'seq_text' | 'status'> & {
  status: ToolApprovalStatus;
};

type NoticeRow = Omit<StoredRow<ToolNoticesTable>, 'seq' | 'seq_text' | 'outcome'> & {
  outcome: ToolNotice['outcome'];
};

const ts = (d: Date): RawBuilder<string> => sql<string>`${d.toISOString()}::timestamptz`;

/** The status as of `now`: a lapsed pending or approved approval reads as `expired`. */
const statusAsOf = (now: Date): RawBuilder<ToolApprovalStatus> =>
  sql<ToolApprovalStatus>`CASE WHEN status IN ('pending', 'approved') AND expires_at <= ${ts(now)}
    THEN 'expired' ELSE status END`;

const columns = (status: RawBuilder<unknown>) => sql`tenant_id, id, user_id, tool, policy_tool, upstream,
  arguments_digest, arguments, reason, ${status} AS status,
  ${isoText('created_at')} AS created_at_text, ${isoText('expires_at')} AS expires_at_text,
  ${isoText('decided_at')} AS decided_at_text, decided_by, note, ${isoText('consumed_at')} AS consumed_at_text`;

/** Columns of a row just written (`RETURNING`): its status is what the statement set. */
const WRITTEN = columns(sql`status`);

const keyIs = (k: ToolApprovalKey) => sql`tenant_id = ${k.tenantId} AND user_id = ${k.userId}
  AND policy_tool = ${k.policyTool} AND arguments_digest = ${k.argumentsDigest}`;

const toApproval = (r: ApprovalRow): ToolApproval => ({
  id: r.id,
  tenantId: r.tenant_id,
  userId: r.user_id,
  tool: r.tool,
  policyTool: r.policy_tool,
  upstream: r.upstream,
  argumentsDigest: r.arguments_digest,
  ...(r.arguments === null ? {} : { arguments: r.arguments }),
  reason: r.reason,
  status: r.status,
  createdAt: isoFromText(r.created_at_text),
  expiresAt: isoFromText(r.expires_at_text),
  ...(r.decided_at_text === null ? {} : { decidedAt: isoFromText(r.decided_at_text) }),
  ...(r.decided_by === null ? {} : { decidedBy: r.decided_by }),
  ...(r.note === null ? {} : { note: r.note }),
  ...(r.consumed_at_text === null ? {} : { consumedAt: isoFromText(r.consumed_at_text) }),
});

const toNotice = (r: NoticeRow): ToolNotice => ({
  id: r.id,
  tenantId: r.tenant_id,
  userId: r.user_id,
  tool: r.tool,
  upstream: r.upstream,
  argumentsDigest: r.arguments_digest,
  outcome: r.outcome,
  at: isoFromText(r.at_text),
});

/** `AND user_id IN (…)`, or nothing when no user filter is given. */
const usersIn = (userIds: readonly string[] | undefined) =>
  userIds === undefined ? sql`` : sql`AND user_id IN (${sql.join(userIds)})`;

const limitOf = (limit: number | undefined) =>
  limit === undefined ? sql`` : sql`LIMIT ${Math.max(0, Math.floor(limit))}`;

/**
 * `ToolCallInbox` on PostgreSQL / PGlite (tables `tool_approvals` and `tool_notices`, migrations
 * `0007_tool_call_inbox` and `0011_tool_approval_arguments`, the approval's arguments): every
 * server process on the database shares one inbox, and it survives restarts. Each state change
 * is one conditional statement, so the database decides races:
 * `decide` is `UPDATE … WHERE status = 'pending' AND expires_at > now` (compare-and-set),
 * `consume` takes one approved row with `FOR UPDATE SKIP LOCKED` and re-checks its status in the
 * `UPDATE`, and `request` inserts under a partial unique index on the pending row of a key.
 */
export class KyselyToolCallInbox implements ToolCallInbox {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async request(input: ToolApprovalRequest, now: Date): Promise<ToolApproval> {
    const expiresAt = new Date(now.getTime() + input.ttlMs);
    for (let attempt = 0; attempt < 5; attempt++) {
      // A lapsed pending approval of the key is expired for good, so a new one may be pending.
      await sql`UPDATE tool_approvals SET status = 'expired'
        WHERE ${keyIs(input)} AND status = 'pending' AND expires_at <= ${ts(now)}`.execute(this.#db);
      const inserted = await sql<ApprovalRow>`INSERT INTO tool_approvals
          (tenant_id, id, user_id, tool, policy_tool, upstream, arguments_digest, arguments, reason,
           status, created_at, expires_at)
        VALUES (${input.tenantId}, ${newId()}, ${input.userId}, ${input.tool}, ${input.policyTool},
          ${input.upstream}, ${input.argumentsDigest}, ${input.arguments ?? null}, ${input.reason},
          'pending', ${ts(now)}, ${ts(expiresAt)})
        ON CONFLICT (tenant_id, user_id, policy_tool, arguments_digest) WHERE status = 'pending'
        DO NOTHING
        RETURNING ${WRITTEN}`.execute(this.#db);
      const row = inserted.rows[0];
      if (row) return toApproval(row);
      // The key's pending approval, as stored — its arguments too: the same digest, the same text.
      const { rows } = await sql<ApprovalRow>`SELECT ${columns(statusAsOf(now))} FROM tool_approvals
        WHERE ${keyIs(input)} AND status = 'pending' AND expires_at > ${ts(now)}`.execute(this.#db);
      const pending = rows[0];
      if (pending) return toApproval(pending);
      // The pending row was decided (or lapsed) between the insert and the read: ask again.
    }
    throw new Error('tool approval request did not settle');
  }

  async get(tenantId: string, id: string, now: Date): Promise<ToolApproval | undefined> {
    const { rows } = await sql<ApprovalRow>`SELECT ${columns(statusAsOf(now))} FROM tool_approvals
      WHERE tenant_id = ${tenantId} AND id = ${id}`.execute(this.#db);
    const row = rows[0];
    return row && toApproval(row);
  }

  async list(tenantId: string, now: Date, filter: ToolApprovalListFilter = {}): Promise<ToolApproval[]> {
    if (filter.userIds?.length === 0) return [];
    const status = statusAsOf(now);
    const { rows } = await sql<ApprovalRow>`SELECT ${columns(status)} FROM tool_approvals
      WHERE tenant_id = ${tenantId} ${usersIn(filter.userIds)}
        ${filter.call === undefined ? sql`` : sql`AND policy_tool = ${filter.call.policyTool} AND arguments_digest = ${filter.call.argumentsDigest}`}
        ${filter.status === undefined ? sql`` : sql`AND ${status} = ${filter.status}`}
      ORDER BY created_at DESC, seq DESC ${limitOf(filter.limit)}`.execute(this.#db);
    return rows.map(toApproval);
  }

  async decide(
    tenantId: string,
    id: string,
    decision: ToolApprovalDecision,
    now: Date,
  ): Promise<ToolApproval | undefined> {
    const { rows } = await sql<ApprovalRow>`UPDATE tool_approvals SET
        status = ${decision.approved ? 'approved' : 'rejected'}, decided_at = ${ts(now)},
        decided_by = ${decision.by}, note = ${decision.note ?? null}
      WHERE tenant_id = ${tenantId} AND id = ${id} AND status = 'pending' AND expires_at > ${ts(now)}
      RETURNING ${WRITTEN}`.execute(this.#db);
    const row = rows[0];
    return row && toApproval(row);
  }

  async consume(key: ToolApprovalKey, now: Date): Promise<ToolApproval | undefined> {
    const { rows } = await sql<ApprovalRow>`UPDATE tool_approvals SET status = 'consumed',
        consumed_at = ${ts(now)}
      WHERE tenant_id = ${key.tenantId} AND status = 'approved' AND id = (
        SELECT id FROM tool_approvals
        WHERE ${keyIs(key)} AND status = 'approved' AND expires_at > ${ts(now)}
        ORDER BY created_at, seq LIMIT 1
        FOR UPDATE SKIP LOCKED)
      RETURNING ${WRITTEN}`.execute(this.#db);
    const row = rows[0];
    return row && toApproval(row);
  }

  async notice(notice: Omit<ToolNotice, 'id' | 'at'>, now: Date): Promise<ToolNotice> {
    const { rows } = await sql<NoticeRow>`INSERT INTO tool_notices
        (tenant_id, id, user_id, tool, upstream, arguments_digest, outcome, at)
      VALUES (${notice.tenantId}, ${newId()}, ${notice.userId}, ${notice.tool}, ${notice.upstream},
        ${notice.argumentsDigest}, ${notice.outcome}, ${ts(now)})
      RETURNING tenant_id, id, user_id, tool, upstream, arguments_digest, outcome,
        ${isoText('at')} AS at_text`.execute(this.#db);
    return toNotice(rows[0] as NoticeRow);
  }

  async notices(
    tenantId: string,
    filter: { userIds?: readonly string[]; limit?: number } = {},
  ): Promise<ToolNotice[]> {
    if (filter.userIds?.length === 0) return [];
    const { rows } = await sql<NoticeRow>`SELECT tenant_id, id, user_id, tool, upstream,
        arguments_digest, outcome, ${isoText('at')} AS at_text
      FROM tool_notices WHERE tenant_id = ${tenantId} ${usersIn(filter.userIds)}
      ORDER BY at DESC, seq DESC ${limitOf(filter.limit)}`.execute(this.#db);
    return rows.map(toNotice);
  }
}
