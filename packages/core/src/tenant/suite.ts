import { expect } from 'vitest';
import { defineConformanceSuite, STRING_255, UNICODE_SAMPLES } from '../testing/conformance';
import { FIXTURE_EPOCH, isoAt } from '../testing/fixtures';
import type { TenantStore } from './port';
import { TenantSchema } from './schema';

const now = new Date(FIXTURE_EPOCH);

const cases = {
  'ensure: registers an unknown tenant and returns the stored record': async (store: TenantStore) => {
    const t = await store.ensure({ id: 'acme', name: 'Acme Corp' }, now);
    expect(TenantSchema.parse(t)).toEqual(t);
    expect(t).toEqual({ id: 'acme', name: 'Acme Corp', status: 'active', createdAt: isoAt(0) });
    expect(await store.get('acme')).toEqual(t);
  },
  'ensure: without a name still registers a valid tenant': async (store: TenantStore) => {
    const t = await store.ensure({ id: 'globex' }, now);
    expect(t.id).toBe('globex');
    expect(TenantSchema.parse(t)).toEqual(t);
    expect(await store.get('globex')).toEqual(t);
  },
  'ensure: is idempotent and keeps the first record': async (store: TenantStore) => {
    const first = await store.ensure({ id: 'acme', name: 'Acme' }, now);
    const again = await store.ensure({ id: 'acme', name: 'Renamed' }, new Date(FIXTURE_EPOCH + 3_600_000));
    expect(again).toEqual(first);
    expect(await store.list()).toEqual([first]);
  },
  'ensure: 20 concurrent calls for one id create exactly one tenant': async (store: TenantStore) => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.ensure({ id: 'acme', name: `Acme ${i}` }, new Date(FIXTURE_EPOCH + i)),
      ),
    );
    const first = results[0];
    expect(results.every((r) => JSON.stringify(r) === JSON.stringify(first))).toBe(true);
    expect(await store.list()).toEqual([first]);
  },
  'round-trip: unicode and 255-character names': async (store: TenantStore) => {
    const names = [...UNICODE_SAMPLES, STRING_255];
    for (const [i, name] of names.entries()) {
      const t = await store.ensure({ id: `tenant-${i}`, name }, now);
      expect(t.name).toBe(name);
      expect((await store.get(`tenant-${i}`))?.name).toBe(name);
    }
    const longId = 'i'.repeat(255);
    expect((await store.ensure({ id: longId, name: 'x' }, now)).id).toBe(longId);
  },
  'get: unknown id is undefined': async (store: TenantStore) => {
    await store.ensure({ id: 'acme' }, now);
    expect(await store.get('nope')).toBeUndefined();
    expect(await store.get('ACME')).toBeUndefined();
  },
  'list: all tenants ordered by id': async (store: TenantStore) => {
    expect(await store.list()).toEqual([]);
    for (const id of ['tenant-c', 'tenant-a', 'tenant-d', 'tenant-b']) await store.ensure({ id }, now);
    expect((await store.list()).map((t) => t.id)).toEqual(['tenant-a', 'tenant-b', 'tenant-c', 'tenant-d']);
  },
  'copy: mutating a returned tenant does not change the store': async (store: TenantStore) => {
    const t = await store.ensure({ id: 'acme', name: 'Acme' }, now);
    t.name = 'changed';
    const got = await store.get('acme');
    expect(got?.name).toBe('Acme');
    if (got) got.status = 'suspended';
    expect((await store.list())[0]?.status).toBe('active');
  },
} satisfies Record<string, (store: TenantStore) => Promise<void>>;

export type TenantStoreCaseName = keyof typeof cases;
export const describeTenantStoreConformance = defineConformanceSuite<TenantStore, TenantStoreCaseName>(
  'TenantStore',
  cases,
);
