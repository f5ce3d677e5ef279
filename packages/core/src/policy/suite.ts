import { expect } from 'vitest';
import {
  defineConformanceSuite,
  duplicateKeyCase,
  type RecordAccess,
  roundTripCase,
  STRING_255,
  shuffled,
  UNICODE_SAMPLES,
} from '../testing/conformance';
import { isoAt, makePolicy } from '../testing/fixtures';
import type { PolicyFilter, PolicyStore } from './port';
import type { Policy } from './schema';

const A = 'tenant-a';
const B = 'tenant-b';

/** A varied set of policies of tenant A (createdAt ties broken by id) and two of tenant B. */
async function seed(store: PolicyStore): Promise<Policy[]> {
  const specs: Partial<Policy>[] = [
    { scope: 'enterprise', scopeId: A, domain: 'agent-to-agent', status: 'active', createdAt: isoAt(0) },
    { scope: 'org', scopeId: 'eng', domain: 'agent-to-agent', status: 'active', createdAt: isoAt(1) },
    { scope: 'org', scopeId: 'sales', domain: 'models', status: 'draft', createdAt: isoAt(1) },
    {
      scope: 'team',
      scopeId: 'platform',
      domain: 'agent-to-agent',
      status: 'deprecated',
      createdAt: isoAt(1),
    },
    { scope: 'team', scopeId: 'platform', domain: 'integrations', status: 'active', createdAt: isoAt(2) },
    { scope: 'user', scopeId: 'alice', domain: 'agent-to-agent', status: 'active', createdAt: isoAt(3) },
    { scope: 'user', scopeId: 'bob', domain: 'data', status: 'draft', createdAt: isoAt(3) },
    { scope: 'enterprise', scopeId: A, domain: 'audit', status: 'deprecated', createdAt: isoAt(4) },
  ];
  const mine = specs.map((s) => makePolicy({ tenantId: A, ...s, updatedAt: s.createdAt ?? isoAt(0) }));
  for (const p of shuffled(mine)) await store.insert(p);
  for (const p of [
    makePolicy({ tenantId: B, scope: 'org', scopeId: 'eng' }),
    makePolicy({ tenantId: B, scope: 'enterprise', scopeId: B }),
  ])
    await store.insert(p);
  return [...mine].sort((a, b) =>
    a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
  );
}

function matches(p: Policy, f: PolicyFilter): boolean {
  const statuses = f.status === undefined ? undefined : typeof f.status === 'string' ? [f.status] : f.status;
  return (
    (f.scope === undefined || p.scope === f.scope) &&
    (f.domain === undefined || p.domain === f.domain) &&
    (statuses === undefined || statuses.includes(p.status)) &&
    (f.targets === undefined || f.targets.some((t) => t.scope === p.scope && t.scopeId === p.scopeId))
  );
}

async function expectFilter(store: PolicyStore, all: Policy[], filter: PolicyFilter): Promise<void> {
  const expected = all.filter((p) => matches(p, filter));
  expect(await store.list(A, filter)).toEqual(expected);
  expect(await store.count(A, filter)).toBe(expected.length);
}

/** Runs a write to a returned record; a frozen record refuses it with a TypeError (strict mode). */
function writeIfMutable(write: () => void): void {
  try {
    write();
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
  }
}

const policies: RecordAccess<PolicyStore, Policy> = {
  write: (store, p) => store.insert(p),
  read: (store, p) => store.get(p.tenantId, p.id),
};

const cases = {
  'insert/get: every field round-trips (unicode, 255-character strings, long content)': roundTripCase(
    policies,
    () => {
      const rich = makePolicy({
        tenantId: A,
        scope: 'team',
        scopeId: STRING_255,
        domain: 'integrations',
        name: STRING_255,
        version: '12.3.4-rc.1+build.5',
        content: `# ${UNICODE_SAMPLES.join('\n# ')}\nallowed_classifications: [public, internal]\n${'x: 1\n'.repeat(2000)}`,
        status: 'draft',
        createdBy: UNICODE_SAMPLES[0],
        createdAt: '2025-02-03T04:05:06.007Z',
        updatedAt: '2025-02-04T04:05:06.999Z',
        changeReason: UNICODE_SAMPLES.join(' '),
      });
      const plain = makePolicy({ tenantId: A });
      return [rich, plain];
    },
    () => makePolicy({ tenantId: A }),
  ),
  'get: an unknown id is undefined': async (store: PolicyStore) => {
    await store.insert(makePolicy({ tenantId: A }));
    expect(await store.get(A, '00000000-0000-4000-8000-000000000000')).toBeUndefined();
  },
  'insert: a duplicate id throws and keeps the original': duplicateKeyCase(
    policies,
    () => makePolicy({ tenantId: A }),
    (p) => ({ ...p, name: 'other' }),
    async (store) => expect(await store.count(A)).toBe(1),
  ),
  'update: replaces the stored policy and returns true': async (store: PolicyStore) => {
    const p = makePolicy({ tenantId: A, status: 'draft' });
    await store.insert(p);
    const next: Policy = {
      ...p,
      content: 'max_classification: public\n',
      version: '1.1.0',
      status: 'active',
      updatedAt: isoAt(10),
      changeReason: 'tighten',
    };
    expect(await store.update(next)).toBe(true);
    expect(await store.get(A, p.id)).toEqual(next);
    expect(await store.count(A)).toBe(1);
  },
  'update: returns false when absent and writes nothing': async (store: PolicyStore) => {
    const p = makePolicy({ tenantId: A });
    expect(await store.update(p)).toBe(false);
    expect(await store.get(A, p.id)).toBeUndefined();
    expect(await store.count(A)).toBe(0);
  },
  'tenant isolation: get, list, count and update never see another tenant': async (store: PolicyStore) => {
    const pa = makePolicy({ tenantId: A });
    await store.insert(pa);
    expect(await store.get(B, pa.id)).toBeUndefined();
    expect(await store.list(B)).toEqual([]);
    expect(await store.count(B)).toBe(0);
    expect(await store.update({ ...pa, tenantId: B, name: 'hijack' })).toBe(false);
    expect(await store.get(A, pa.id)).toEqual(pa);
    expect(await store.get(B, pa.id)).toBeUndefined();
  },
  'list: ordered by createdAt then id': async (store: PolicyStore) => {
    const all = await seed(store);
    expect(await store.list(A)).toEqual(all);
    expect(await store.count(A)).toBe(all.length);
    expect(await store.list(B)).toHaveLength(2);
  },
  'list/count: each filter alone': async (store: PolicyStore) => {
    const all = await seed(store);
    const filters: PolicyFilter[] = [
      { scope: 'org' },
      { scope: 'user' },
      { domain: 'agent-to-agent' },
      { domain: 'features' },
      { status: 'active' },
      { status: 'deprecated' },
      { status: ['draft', 'deprecated'] },
      { status: ['active'] },
      { targets: [{ scope: 'team', scopeId: 'platform' }] },
      {
        targets: [
          { scope: 'enterprise', scopeId: A },
          { scope: 'user', scopeId: 'alice' },
          { scope: 'org', scopeId: 'nope' },
        ],
      },
      { targets: [{ scope: 'org', scopeId: 'platform' }] },
    ];
    for (const f of filters) await expectFilter(store, all, f);
  },
  'list/count: filters combined': async (store: PolicyStore) => {
    const all = await seed(store);
    const filters: PolicyFilter[] = [
      { scope: 'team', domain: 'agent-to-agent' },
      { scope: 'enterprise', status: ['active', 'draft'] },
      {
        domain: 'agent-to-agent',
        status: 'active',
        targets: [
          { scope: 'org', scopeId: 'eng' },
          { scope: 'user', scopeId: 'alice' },
        ],
      },
      { scope: 'user', domain: 'data', status: 'draft', targets: [{ scope: 'user', scopeId: 'bob' }] },
      { scope: 'org', domain: 'models', status: 'active' },
    ];
    for (const f of filters) await expectFilter(store, all, f);
  },
  'list/count: empty status and targets lists match nothing': async (store: PolicyStore) => {
    await seed(store);
    expect(await store.list(A, { status: [] })).toEqual([]);
    expect(await store.count(A, { status: [] })).toBe(0);
    expect(await store.list(A, { targets: [] })).toEqual([]);
    expect(await store.count(A, { targets: [] })).toBe(0);
  },
  'copy: mutating inputs or returned policies does not change the store': async (store: PolicyStore) => {
    const p = makePolicy({ tenantId: A });
    const snapshot = structuredClone(p);
    await store.insert(p);
    p.name = 'mutated input';
    const got = await store.get(A, p.id);
    expect(got).toEqual(snapshot);
    // A returned policy is a copy, or frozen (the write throws): either way the store keeps its own.
    writeIfMutable(() => {
      if (got) got.content = 'mutated output';
    });
    const listed = await store.list(A);
    expect(listed).toEqual([snapshot]);
    writeIfMutable(() => {
      if (listed[0]) listed[0].status = 'deprecated';
    });
    expect(await store.get(A, p.id)).toEqual(snapshot);
  },
} satisfies Record<string, (store: PolicyStore) => Promise<void>>;

export type PolicyStoreCaseName = keyof typeof cases;
export const describePolicyStoreConformance = defineConformanceSuite<PolicyStore, PolicyStoreCaseName>(
  'PolicyStore',
  cases,
);
