/**
 * The conformance suites must be able to fail: each deliberately broken store below violates one
 * clause of its port's contract, and the named case has to catch it.
 */
import {
  type AuditRecord,
  type AuditStore,
  type ChainHead,
  type Exchange,
  InMemoryAuditStore,
  InMemoryExchangeStore,
  InMemoryPolicyStore,
  InMemorySessionStore,
  InMemoryTaskStore,
  type Policy,
  type Tenant,
} from '@agentgov/core';
import {
  describeAuditStoreConformance as audit,
  type ConformanceSuite,
  describeExchangeStoreConformance as exchange,
  describePolicyStoreConformance as policy,
  describeSessionStoreConformance as session,
  describeTaskStoreConformance as task,
  describeTenantStoreConformance as tenant,
} from '@agentgov/core/testing';
import { describe, expect, it } from 'vitest';

function killedBy<S, C extends string>(suite: ConformanceSuite<S, C>, caseName: C, mutant: () => S) {
  it(`${suite.port}: “${caseName}” catches it`, async () => {
    await expect(suite.cases[caseName](mutant())).rejects.toThrow();
  });
}

/** Delegates everything to a real in-memory audit store, with overrides. */
function auditMutant(overrides: Partial<AuditStore> & ThisType<InMemoryAuditStore>): AuditStore {
  const real = new InMemoryAuditStore();
  return new Proxy(real, {
    get(target, prop, receiver) {
      const own = (overrides as Record<PropertyKey, unknown>)[prop];
      if (typeof own === 'function') return own.bind(target);
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

describe('conformance suites catch broken stores', () => {
  // An audit store that does not check that a batch links to the head.
  killedBy(audit, 'append: a batch that does not link to the head rejects and writes nothing', () => {
    const chains = new Map<string, AuditRecord[]>();
    const real = new InMemoryAuditStore();
    return auditMutant({
      async append(tenantId, build) {
        const chain = chains.get(tenantId) ?? [];
        const last = chain.at(-1);
        const out = await build(last && { seq: last.seq, hash: last.hash });
        chains.set(tenantId, chain.concat(out));
        return real.append(tenantId, () => out).catch(() => out);
      },
      async count(tenantId) {
        return chains.get(tenantId ?? '')?.length ?? 0;
      },
      async head(tenantId) {
        const last = chains.get(tenantId)?.at(-1);
        return last && { seq: last.seq, hash: last.hash };
      },
    });
  });

  // An audit store without the per-tenant lock: concurrent builds see the same head.
  killedBy(audit, 'append: 50 concurrent appends to one tenant all resolve with seq 1..50, linked', () => {
    const real = new InMemoryAuditStore();
    return auditMutant({
      async append(tenantId, build) {
        const head = await real.head(tenantId);
        const records = await build(head);
        return real.append(tenantId, () => records);
      },
    });
  });

  // An audit store with one global lock: tenants wait for each other.
  killedBy(audit, 'append: appends of different tenants do not wait for each other', () => {
    const real = new InMemoryAuditStore();
    let tail: Promise<unknown> = Promise.resolve();
    return auditMutant({
      append(tenantId, build) {
        const run = tail.then(() => real.append(tenantId, build));
        tail = run.catch(() => undefined);
        return run;
      },
    });
  });

  // An audit store that ignores the abort signal.
  killedBy(audit, 'append: an already aborted signal rejects and writes nothing', () => {
    const real = new InMemoryAuditStore();
    return auditMutant({
      append: (
        tenantId: string,
        build: (h: ChainHead | undefined) => AuditRecord[] | Promise<AuditRecord[]>,
      ) => real.append(tenantId, build),
    });
  });

  // Exclusive upper bound instead of inclusive.
  killedBy(audit, 'query: from/to bounds are inclusive', () => {
    const real = new InMemoryAuditStore();
    return auditMutant({
      async query(tenantId, filter, page) {
        const r = await real.query(tenantId, filter, page);
        const records = r.records.filter((x) => filter.to === undefined || x.entry.timestamp < filter.to);
        return { records, total: records.length };
      },
    });
  });

  // Bounds compared as strings.
  killedBy(audit, 'query: from/to compare instants, also when written with an offset', () => {
    const real = new InMemoryAuditStore();
    return auditMutant({
      async query(tenantId, filter, page) {
        const all = await real.query(tenantId, {}, { offset: 0, limit: 10_000, order: page.order });
        const records = all.records.filter(
          (x) =>
            (filter.from === undefined || x.entry.timestamp >= filter.from) &&
            (filter.to === undefined || x.entry.timestamp <= filter.to),
        );
        return { records: records.slice(page.offset, page.offset + page.limit), total: records.length };
      },
    });
  });

  // Anonymization that rewrites every matching actionDetail value, committed or not.
  killedBy(audit, 'anonymize: replaces entry.userId and committed actionDetail paths only', () => {
    const real = new InMemoryAuditStore();
    return auditMutant({
      // Simulated on read: every actionDetail value equal to the erased user comes back replaced.
      async get(tenantId, id) {
        const r = await real.get(tenantId, id);
        if (r)
          for (const [k, v] of Object.entries(r.entry.actionDetail))
            if (v === 'alice') r.entry.actionDetail[k] = 'anon-7f3a';
        return r;
      },
    });
  });

  // A store that hands out its internal objects.
  killedBy(audit, 'append: returned and stored records are copies', () => {
    const stored = new Map<string, AuditRecord>();
    const real = new InMemoryAuditStore();
    return auditMutant({
      async append(tenantId, build) {
        const out = await real.append(tenantId, build);
        for (const r of out) stored.set(r.entry.id, r);
        return out;
      },
      async get(_tenantId, id) {
        return stored.get(id);
      },
    });
  });

  // CAS ignoring the expected round.
  killedBy(exchange, 'update: compare-and-set on currentRound', () => {
    const real = new InMemoryExchangeStore();
    return Object.assign(Object.create(real) as InMemoryExchangeStore, {
      insert: (x: Exchange) => real.insert(x),
      get: (t: string, id: string) => real.get(t, id),
      listByConversation: (t: string, c: string) => real.listByConversation(t, c),
      update: async (x: Exchange) => {
        const cur = await real.get(x.tenantId, x.exchangeId);
        return cur ? real.update(x, cur.currentRound) : false;
      },
    });
  });

  // ensure with a check-then-act race.
  killedBy(tenant, 'ensure: 20 concurrent calls for one id create exactly one tenant', () => {
    const rows = new Map<string, Tenant>();
    return {
      async ensure(t: { id: string; name?: string }, now: Date) {
        const had = rows.get(t.id);
        await new Promise((r) => setTimeout(r, 0));
        const rec = had ?? {
          id: t.id,
          name: t.name ?? t.id,
          status: 'active' as const,
          createdAt: now.toISOString(),
        };
        rows.set(t.id, rec);
        return structuredClone(rec);
      },
      get: async (id: string) => rows.get(id),
      list: async () => [...rows.values()],
    };
  });

  // Policies listed in insertion order.
  killedBy(policy, 'list: ordered by createdAt then id', () => {
    const real = new InMemoryPolicyStore();
    const order: Policy[] = [];
    return Object.assign(Object.create(real) as InMemoryPolicyStore, {
      insert: async (p: Policy) => {
        order.push(p);
        await real.insert(p);
      },
      list: async (t: string) => order.filter((p) => p.tenantId === t),
      count: (t: string) => real.count(t),
    });
  });

  // A task store keyed by id only.
  killedBy(task, 'tenant isolation: get, list, delete, and put of the same id in another tenant', () => {
    const real = new InMemoryTaskStore();
    const owner = new Map<string, string>();
    return Object.assign(Object.create(real) as InMemoryTaskStore, {
      put: async (t: Parameters<InMemoryTaskStore['put']>[0]) => {
        const prev = owner.get(t.id);
        if (prev && prev !== t.tenantId) await real.delete(prev, t.id);
        owner.set(t.id, t.tenantId);
        await real.put(t);
      },
      get: (tn: string, id: string) => real.get(tn, id),
      list: (tn: string) => real.list(tn),
      delete: (tn: string, id: string) => real.delete(tn, id),
    });
  });

  // Sessions expiring at exactly `now` deleted too.
  killedBy(session, 'deleteExpired: removes sessions that expired before now and counts them', () => {
    const real = new InMemorySessionStore();
    return Object.assign(Object.create(real) as InMemorySessionStore, {
      create: (s: Parameters<InMemorySessionStore['create']>[0]) => real.create(s),
      get: (h: string) => real.get(h),
      delete: (h: string) => real.delete(h),
      deleteExpired: (now: Date) => real.deleteExpired(new Date(now.getTime() + 1)),
    });
  });
});
