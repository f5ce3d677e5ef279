import { newId } from '../ids';
import type { ToolApprovalListFilter, ToolCallInbox } from './port';
import type {
  ToolApproval,
  ToolApprovalDecision,
  ToolApprovalKey,
  ToolApprovalRequest,
  ToolNotice,
} from './schema';

const sameKey = (a: ToolApproval, k: ToolApprovalKey) =>
  a.tenantId === k.tenantId &&
  a.userId === k.userId &&
  a.policyTool === k.policyTool &&
  a.argumentsDigest === k.argumentsDigest;

/** The approval as of `now`: a lapsed pending or approved one reads as `expired`. */
const asOf = (a: ToolApproval, now: Date): ToolApproval =>
  (a.status === 'pending' || a.status === 'approved') && Date.parse(a.expiresAt) <= now.getTime()
    ? { ...a, status: 'expired' }
    : { ...a };

/**
 * `ToolCallInbox` of one process (nothing survives a restart; several processes do not share it:
 * use the SQL inbox of `@agentgov/store-kysely` for that). Bounded: beyond `max` entries the
 * oldest finished approvals and the oldest notices are dropped.
 */
export class InMemoryToolCallInbox implements ToolCallInbox {
  readonly #approvals = new Map<string, ToolApproval>();
  readonly #notices: ToolNotice[] = [];
  readonly #max: number;

  constructor(options: { max?: number } = {}) {
    this.#max = options.max ?? 10_000;
  }

  async request(input: ToolApprovalRequest, now: Date): Promise<ToolApproval> {
    for (const a of this.#approvals.values()) {
      if (sameKey(a, input) && asOf(a, now).status === 'pending') return { ...a };
    }
    const approval: ToolApproval = {
      id: newId(),
      tenantId: input.tenantId,
      userId: input.userId,
      tool: input.tool,
      policyTool: input.policyTool,
      upstream: input.upstream,
      argumentsDigest: input.argumentsDigest,
      ...(input.arguments === undefined ? {} : { arguments: input.arguments }),
      reason: input.reason,
      status: 'pending',
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + input.ttlMs).toISOString(),
    };
    this.#approvals.set(approval.id, approval);
    this.#trim(now);
    return { ...approval };
  }

  #trim(now: Date): void {
    if (this.#approvals.size <= this.#max) return;
    for (const [id, a] of this.#approvals) {
      if (this.#approvals.size <= this.#max) break;
      const s = asOf(a, now).status;
      if (s !== 'pending' && s !== 'approved') this.#approvals.delete(id);
    }
  }

  async get(tenantId: string, id: string, now: Date): Promise<ToolApproval | undefined> {
    const a = this.#approvals.get(id);
    return a && a.tenantId === tenantId ? asOf(a, now) : undefined;
  }

  async list(tenantId: string, now: Date, filter: ToolApprovalListFilter = {}): Promise<ToolApproval[]> {
    const out: ToolApproval[] = [];
    for (const stored of [...this.#approvals.values()].reverse()) {
      if (filter.limit !== undefined && out.length >= filter.limit) break;
      if (stored.tenantId !== tenantId) continue;
      if (filter.userIds && !filter.userIds.includes(stored.userId)) continue;
      if (
        filter.call &&
        (stored.policyTool !== filter.call.policyTool ||
          stored.argumentsDigest !== filter.call.argumentsDigest)
      )
        continue;
      const a = asOf(stored, now);
      if (filter.status && a.status !== filter.status) continue;
      out.push(a);
    }
    return out;
  }

  async decide(
    tenantId: string,
    id: string,
    decision: ToolApprovalDecision,
    now: Date,
  ): Promise<ToolApproval | undefined> {
    const a = this.#approvals.get(id);
    if (!a || a.tenantId !== tenantId || asOf(a, now).status !== 'pending') return undefined;
    a.status = decision.approved ? 'approved' : 'rejected';
    a.decidedAt = now.toISOString();
    a.decidedBy = decision.by;
    if (decision.note !== undefined) a.note = decision.note;
    return { ...a };
  }

  async consume(key: ToolApprovalKey, now: Date): Promise<ToolApproval | undefined> {
    for (const a of this.#approvals.values()) {
      if (sameKey(a, key) && asOf(a, now).status === 'approved') {
        a.status = 'consumed';
        a.consumedAt = now.toISOString();
        return { ...a };
      }
    }
    return undefined;
  }

  async notice(notice: Omit<ToolNotice, 'id' | 'at'>, now: Date): Promise<ToolNotice> {
    const n: ToolNotice = { ...notice, id: newId(), at: now.toISOString() };
    this.#notices.push(n);
    if (this.#notices.length > this.#max) this.#notices.shift();
    return { ...n };
  }

  async notices(
    tenantId: string,
    filter: { userIds?: readonly string[]; limit?: number } = {},
  ): Promise<ToolNotice[]> {
    const out: ToolNotice[] = [];
    for (let i = this.#notices.length - 1; i >= 0; i--) {
      if (filter.limit !== undefined && out.length >= filter.limit) break;
      const n = this.#notices[i] as ToolNotice;
      if (n.tenantId !== tenantId || (filter.userIds && !filter.userIds.includes(n.userId))) continue;
      out.push({ ...n });
    }
    return out;
  }
}
