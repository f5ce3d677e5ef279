/**
 * Pending tool-call approvals and recorded notices — the proxy's inbox for humans. An approval is
 * bound to one tenant, user, tool (policy name) and arguments digest; it expires, and once
 * approved it is consumed by exactly one call. The store is a port; `InMemoryToolCallInbox` is
 * the implementation of one process.
 */
import { type Clock, newId, systemClock } from '@agentgov/core';

export type ToolApprovalStatus = 'pending' | 'approved' | 'rejected' | 'consumed' | 'expired';

export interface ToolApproval {
  id: string;
  tenantId: string;
  /** The user whose assistant asked (the call is theirs). */
  userId: string;
  /** The exposed tool name and the name the policy was asked about. */
  tool: string;
  policyTool: string;
  upstream: string;
  argumentsDigest: string;
  /** Why approval is needed (the decision's reason). */
  reason: string;
  status: ToolApprovalStatus;
  createdAt: string;
  expiresAt: string;
  decidedAt?: string;
  decidedBy?: string;
  note?: string;
}

export interface ToolNotice {
  id: string;
  tenantId: string;
  userId: string;
  tool: string;
  upstream: string;
  argumentsDigest: string;
  outcome: 'success' | 'error';
  at: string;
}

export interface ToolApprovalKey {
  tenantId: string;
  userId: string;
  policyTool: string;
  argumentsDigest: string;
}

export interface ToolCallInbox {
  /** A new pending approval (an existing pending one of the same key is answered instead). */
  request(
    input: ToolApprovalKey & { tool: string; upstream: string; reason: string; ttlMs: number },
  ): Promise<ToolApproval>;
  get(tenantId: string, id: string): Promise<ToolApproval | undefined>;
  /** Approvals of the tenant (of these users when given), newest first; expired ones are marked so. */
  list(
    tenantId: string,
    filter?: { userIds?: readonly string[]; status?: ToolApprovalStatus },
  ): Promise<ToolApproval[]>;
  /**
   * Records a human's decision on a pending, unexpired approval; undefined when there is none
   * (never pending, already decided, or expired).
   */
  decide(
    tenantId: string,
    id: string,
    decision: { approved: boolean; by: string; note?: string },
  ): Promise<ToolApproval | undefined>;
  /** Takes the approved, unexpired, unconsumed approval of this key, once (atomically). */
  consume(key: ToolApprovalKey): Promise<ToolApproval | undefined>;
  notice(notice: Omit<ToolNotice, 'id' | 'at'>): Promise<ToolNotice>;
  notices(tenantId: string, filter?: { userIds?: readonly string[] }): Promise<ToolNotice[]>;
}

const sameKey = (a: ToolApproval, k: ToolApprovalKey) =>
  a.tenantId === k.tenantId &&
  a.userId === k.userId &&
  a.policyTool === k.policyTool &&
  a.argumentsDigest === k.argumentsDigest;

/** The inbox of one process (bounded: the oldest finished entries are dropped beyond `max`). */
export class InMemoryToolCallInbox implements ToolCallInbox {
  readonly #approvals = new Map<string, ToolApproval>();
  readonly #notices: ToolNotice[] = [];
  readonly #clock: Clock;
  readonly #max: number;

  constructor(options: { clock?: Clock; max?: number } = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#max = options.max ?? 10_000;
  }

  #now(): number {
    return this.#clock.now().getTime();
  }

  #fresh(a: ToolApproval): ToolApproval {
    if ((a.status === 'pending' || a.status === 'approved') && Date.parse(a.expiresAt) <= this.#now())
      a.status = 'expired';
    return a;
  }

  async request(
    input: ToolApprovalKey & { tool: string; upstream: string; reason: string; ttlMs: number },
  ): Promise<ToolApproval> {
    for (const a of this.#approvals.values()) {
      if (sameKey(a, input) && this.#fresh(a).status === 'pending') return { ...a };
    }
    const now = this.#now();
    const approval: ToolApproval = {
      id: newId(),
      tenantId: input.tenantId,
      userId: input.userId,
      tool: input.tool,
      policyTool: input.policyTool,
      upstream: input.upstream,
      argumentsDigest: input.argumentsDigest,
      reason: input.reason,
      status: 'pending',
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + input.ttlMs).toISOString(),
    };
    this.#approvals.set(approval.id, approval);
    this.#trim();
    return { ...approval };
  }

  #trim(): void {
    if (this.#approvals.size <= this.#max) return;
    for (const [id, a] of this.#approvals) {
      if (this.#approvals.size <= this.#max) break;
      if (this.#fresh(a).status !== 'pending' && a.status !== 'approved') this.#approvals.delete(id);
    }
  }

  async get(tenantId: string, id: string): Promise<ToolApproval | undefined> {
    const a = this.#approvals.get(id);
    return a && a.tenantId === tenantId ? { ...this.#fresh(a) } : undefined;
  }

  async list(
    tenantId: string,
    filter: { userIds?: readonly string[]; status?: ToolApprovalStatus } = {},
  ): Promise<ToolApproval[]> {
    const out: ToolApproval[] = [];
    for (const a of this.#approvals.values()) {
      if (a.tenantId !== tenantId) continue;
      if (filter.userIds && !filter.userIds.includes(a.userId)) continue;
      if (filter.status && this.#fresh(a).status !== filter.status) continue;
      out.push({ ...this.#fresh(a) });
    }
    return out.reverse();
  }

  async decide(
    tenantId: string,
    id: string,
    decision: { approved: boolean; by: string; note?: string },
  ): Promise<ToolApproval | undefined> {
    const a = this.#approvals.get(id);
    if (!a || a.tenantId !== tenantId || this.#fresh(a).status !== 'pending') return undefined;
    a.status = decision.approved ? 'approved' : 'rejected';
    a.decidedAt = new Date(this.#now()).toISOString();
    a.decidedBy = decision.by;
    if (decision.note !== undefined) a.note = decision.note;
    return { ...a };
  }

  async consume(key: ToolApprovalKey): Promise<ToolApproval | undefined> {
    for (const a of this.#approvals.values()) {
      if (sameKey(a, key) && this.#fresh(a).status === 'approved') {
        a.status = 'consumed';
        return { ...a };
      }
    }
    return undefined;
  }

  async notice(notice: Omit<ToolNotice, 'id' | 'at'>): Promise<ToolNotice> {
    const n: ToolNotice = { ...notice, id: newId(), at: new Date(this.#now()).toISOString() };
    this.#notices.push(n);
    if (this.#notices.length > this.#max) this.#notices.shift();
    return { ...n };
  }

  async notices(tenantId: string, filter: { userIds?: readonly string[] } = {}): Promise<ToolNotice[]> {
    return this.#notices
      .filter((n) => n.tenantId === tenantId && (!filter.userIds || filter.userIds.includes(n.userId)))
      .map((n) => ({ ...n }))
      .reverse();
  }
}
