/**
 * The non-store suites must be able to fail too (RateLimiter, ActivityTracker, AuditSink,
 * DecisionEngine): each broken implementation below violates one clause, and the named case
 * has to catch it. See conformance-mutants.test.ts for the stores.
 */
import {
  type ActivityTracker,
  type AuditEntry,
  type AuditEntryInput,
  type Decision,
  InMemoryAuditSink,
  ok,
  type RateLimit,
  type RateLimitDecision,
  type RateLimiter,
} from '@agentgov/core';
import {
  type AuditSinkHarness,
  describeActivityTrackerConformance as activity,
  describeAuditSinkConformance as auditSink,
  type ConformanceSuite,
  type DecisionEngineHarness,
  describeDecisionEngineConformance as decisionEngine,
  describeRateLimiterConformance as rateLimiter,
} from '@agentgov/core/testing';
import { describe, expect, it } from 'vitest';

function killedBy<S, C extends string>(suite: ConformanceSuite<S, C>, caseName: C, mutant: () => S) {
  it(`${suite.port}: “${caseName}” catches it`, async () => {
    await expect(suite.cases[caseName](mutant())).rejects.toThrow();
  });
}

/** A fixed-window limiter over a map; `atomic: false` reads, yields, then writes (a lost update). */
function countingLimiter(options: { atomic: boolean; perLimit: boolean; resets: boolean }): RateLimiter {
  const windows = new Map<string, { used: number; until: number }>();
  return {
    async consume(key: string, limit: RateLimit): Promise<RateLimitDecision> {
      const id = options.perLimit ? `${limit.points}/${limit.durationSeconds}/${key}` : key;
      const now = Date.now();
      let w = windows.get(id);
      if (!w || (options.resets && w.until <= now))
        w = { used: 0, until: now + limit.durationSeconds * 1000 };
      const used = w.used;
      if (!options.atomic) await new Promise((r) => setTimeout(r, 0));
      windows.set(id, { used: used + 1, until: w.until });
      const allowed = used < limit.points;
      const resetSeconds = Math.max(allowed ? 0 : 1, Math.ceil((w.until - now) / 1000));
      return { allowed, limit: limit.points, remaining: Math.max(0, limit.points - used - 1), resetSeconds };
    },
  };
}

/** Activity as a list of touches: `distinct` and `tenants` switch the two clauses off. */
function listTracker(options: { distinct: boolean; tenants: boolean }): ActivityTracker {
  const touches: Array<{ tenantId: string; userId: string; at: number }> = [];
  return {
    async touch(tenantId, userId, now) {
      const i = touches.findIndex((t) => t.tenantId === tenantId && t.userId === userId);
      if (options.distinct && i >= 0) touches.splice(i, 1);
      touches.push({ tenantId, userId, at: now.getTime() });
    },
    async countActive(tenantId, since) {
      return touches.filter((t) => (!options.tenants || t.tenantId === tenantId) && t.at >= since.getTime())
        .length;
    },
  };
}

function memorySink(
  append: (real: InMemoryAuditSink, input: AuditEntryInput) => ReturnType<InMemoryAuditSink['append']>,
): AuditSinkHarness {
  const real = new InMemoryAuditSink();
  return {
    sink: { append: (input) => append(real, input) },
    entries: async (tenantId) => real.entries.filter((e) => e.tenantId === tenantId),
  };
}

describe('the engine, limiter, tracker and sink suites catch broken implementations', () => {
  const correct = { atomic: true, perLimit: true, resets: true };
  it('the reference limiter of these mutants passes the cases it is mutated for', async () => {
    await rateLimiter.cases['concurrency: 50 parallel consumptions under 20 points allow exactly 20'](
      countingLimiter(correct),
    );
    await rateLimiter.cases['limits: the same key under different limits is counted separately per limit'](
      countingLimiter(correct),
    );
  });
  killedBy(rateLimiter, 'concurrency: 50 parallel consumptions under 20 points allow exactly 20', () =>
    countingLimiter({ ...correct, atomic: false }),
  );
  killedBy(rateLimiter, 'limits: the same key under different limits is counted separately per limit', () =>
    countingLimiter({ ...correct, perLimit: false }),
  );
  killedBy(rateLimiter, 'window: a refused key is allowed again after durationSeconds', () =>
    countingLimiter({ ...correct, resets: false }),
  );

  killedBy(
    activity,
    'countActive: distinct users are counted once (unicode, 255-character and case-different ids)',
    () => listTracker({ distinct: false, tenants: true }),
  );
  killedBy(
    activity,
    'tenants: activity of one tenant is invisible to another (also to a tenant id sharing a prefix)',
    () => listTracker({ distinct: true, tenants: false }),
  );

  // A sink that throws its validation error instead of returning it.
  killedBy(auditSink, 'append: invalid input is an err result (400), never a throw, and writes nothing', () =>
    memorySink(async (real, input) => {
      const result = await real.append(input);
      if (result.isErr()) throw result.error;
      return result;
    }),
  );
  // A sink that hands out the object it stored.
  killedBy(auditSink, 'copy: mutating the input or the returned entry does not change what was stored', () =>
    memorySink(async (real, input) => {
      const result = await real.append(input);
      if (result.isErr()) return result;
      const stored = real.entries.at(-1) as AuditEntry;
      return ok(stored);
    }),
  );

  // An engine that allows everything: no default deny, no cross-tenant block.
  const yes = (): DecisionEngineHarness => ({
    engine: {
      name: 'yes',
      decide: async () => ok<Decision>({ allow: true, deny: false, reason: 'always', constraints: {} }),
      health: async () => true,
    },
    seed: async () => {},
  });
  killedBy(
    decisionEngine,
    'default deny: with no policy, both domains deny (for a user and at the enterprise level)',
    yes,
  );
  // An engine that answers a request without a user (as the enterprise level) is caught too.
  killedBy(
    decisionEngine,
    'user-bound: without userId a decision is an error, unless scope: enterprise asks for that level explicitly',
    yes,
  );
  killedBy(decisionEngine, 'agent-to-agent: cross-tenant is always denied, whatever the policies say', yes);
});
