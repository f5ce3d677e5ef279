import type {
  ToolApproval,
  ToolApprovalDecision,
  ToolApprovalKey,
  ToolApprovalRequest,
  ToolApprovalStatus,
  ToolNotice,
} from './schema';

export interface ToolApprovalListFilter {
  /** Only approvals of these users (an empty list matches nothing). */
  userIds?: readonly string[];
  /** Only approvals of this status (as of `now`: a lapsed pending or approved one is `expired`). */
  status?: ToolApprovalStatus;
  /** Only approvals of this tool with these arguments (`policyTool` and `argumentsDigest` of a key). */
  call?: { policyTool: string; argumentsDigest: string };
  /** At most this many (the newest). */
  limit?: number;
}

/**
 * Tool calls waiting for a human (`@agentgov/mcp`): pending approvals, decided by a person, each
 * used by at most one call; and the notices of `notify` tools. An approval is bound to one tenant,
 * user, policy tool name and arguments digest, and expires at `expiresAt` (then reads answer it
 * as `expired`). Time is the caller's `now`. Implementations: memory (one process), SQL
 * (`@agentgov/store-kysely`, shared by every process on the database: an approval acknowledged by
 * one process is seen, decided and consumed by any other, and survives restarts).
 */
export interface ToolCallInbox {
  /**
   * A new pending approval expiring at `now + ttlMs`; while an unexpired pending one of the same
   * key exists, that one is answered instead (also when two processes ask at once).
   */
  request(input: ToolApprovalRequest, now: Date): Promise<ToolApproval>;
  /** The tenant's approval `id` as of `now`; undefined when unknown or another tenant's. */
  get(tenantId: string, id: string, now: Date): Promise<ToolApproval | undefined>;
  /** The tenant's approvals matching `filter`, newest first. */
  list(tenantId: string, now: Date, filter?: ToolApprovalListFilter): Promise<ToolApproval[]>;
  /**
   * Records a human's decision on a pending, unexpired approval (compare-and-set: of concurrent
   * deciders exactly one wins); undefined when there is none — unknown, another tenant's, already
   * decided, or expired.
   */
  decide(
    tenantId: string,
    id: string,
    decision: ToolApprovalDecision,
    now: Date,
  ): Promise<ToolApproval | undefined>;
  /**
   * Takes an approved, unexpired, unused approval of exactly this key — the oldest requested of
   * them, the last of them in `list` — and marks it `consumed`, atomically: of concurrent
   * consumers (in any process) exactly one gets it. Undefined when none.
   */
  consume(key: ToolApprovalKey, now: Date): Promise<ToolApproval | undefined>;
  /** Records that a `notify` tool was called (at `now`). */
  notice(notice: Omit<ToolNotice, 'id' | 'at'>, now: Date): Promise<ToolNotice>;
  /** The tenant's notices (of these users when given), newest first. */
  notices(tenantId: string, filter?: { userIds?: readonly string[]; limit?: number }): Promise<ToolNotice[]>;
}
