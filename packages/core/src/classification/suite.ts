import { expect } from 'vitest';
import {
  defineConformanceSuite,
  type RecordAccess,
  roundTripCase,
  shuffled,
  UNICODE_SAMPLES,
} from '../testing/conformance';
import { isoAt, makeClassification } from '../testing/fixtures';
import type { ClassificationStore } from './port';
import type { DataClassification } from './schema';

const A = 'tenant-a';
const B = 'tenant-b';

// ASCII lower-case refs: their order is the same under byte order and any common collation.
const REFS = ['calendar:evt-1', 'drive:doc-1', 'drive:doc-2', 'mail:msg-1', 'mail:msg-2', 'tracker:eng-42'];

const classifications: RecordAccess<ClassificationStore, DataClassification> = {
  write: (store, c) => store.put(c),
  read: (store, c) => store.get(c.tenantId, c.dataRef),
};

const cases = {
  'put/get: every field round-trips (nullables, unicode, 1024-char refs)': roundTripCase(
    classifications,
    () => {
      const rich = makeClassification({
        tenantId: A,
        dataRef: `drive:${'d'.repeat(1018)}`,
        level: 'public',
        assignedBy: 'admin_override',
        originalLevel: 'confidential',
        overrideBy: UNICODE_SAMPLES[0],
        overrideReason: UNICODE_SAMPLES.join(' '),
        assessedAt: '2025-10-11T12:13:14.015Z',
      });
      const plain = makeClassification({ tenantId: A, dataRef: 'mail:東京-🚀' });
      return [rich, plain];
    },
    () => makeClassification({ tenantId: A, dataRef: 'mail:unknown' }),
  ),
  'put: replaces the record of the same dataRef': async (store: ClassificationStore) => {
    const first = makeClassification({ tenantId: A, dataRef: 'mail:msg-1', level: 'internal' });
    await store.put(first);
    const raised: DataClassification = {
      ...first,
      level: 'confidential',
      assignedBy: 'ai_reclassification',
      originalLevel: 'internal',
      assessedAt: isoAt(5),
    };
    await store.put(raised);
    expect(await store.get(A, 'mail:msg-1')).toEqual(raised);
    expect(await store.list(A)).toEqual([raised]);
  },
  'tenant isolation: get, list, and the same dataRef in two tenants': async (store: ClassificationStore) => {
    const a = makeClassification({ tenantId: A, dataRef: 'mail:msg-1', level: 'internal' });
    await store.put(a);
    expect(await store.get(B, 'mail:msg-1')).toBeUndefined();
    expect(await store.list(B)).toEqual([]);
    const b = makeClassification({ tenantId: B, dataRef: 'mail:msg-1', level: 'restricted' });
    await store.put(b);
    expect(await store.get(A, 'mail:msg-1')).toEqual(a);
    expect(await store.get(B, 'mail:msg-1')).toEqual(b);
  },
  'list: ordered by dataRef, filtered by level': async (store: ClassificationStore) => {
    const levels = ['public', 'internal', 'internal', 'confidential', 'restricted', 'internal'] as const;
    const all = REFS.map((dataRef, i) => makeClassification({ tenantId: A, dataRef, level: levels[i] }));
    for (const r of shuffled(all)) await store.put(r);
    await store.put(makeClassification({ tenantId: B, dataRef: 'a:first', level: 'internal' }));
    expect(await store.list(A)).toEqual(all);
    expect(await store.list(A, {})).toEqual(all);
    for (const level of ['public', 'internal', 'confidential', 'restricted'] as const) {
      expect(await store.list(A, { level })).toEqual(all.filter((r) => r.level === level));
    }
  },
  'copy: mutating inputs or returned records does not change the store': async (
    store: ClassificationStore,
  ) => {
    const r = makeClassification({ tenantId: A });
    const snapshot = structuredClone(r);
    await store.put(r);
    r.level = 'restricted';
    const got = (await store.get(A, r.dataRef)) as DataClassification;
    expect(got).toEqual(snapshot);
    got.overrideBy = 'mallory';
    const listed = await store.list(A);
    (listed[0] as DataClassification).level = 'public';
    expect(await store.get(A, r.dataRef)).toEqual(snapshot);
  },
} satisfies Record<string, (store: ClassificationStore) => Promise<void>>;

export type ClassificationStoreCaseName = keyof typeof cases;
export const describeClassificationStoreConformance = defineConformanceSuite<
  ClassificationStore,
  ClassificationStoreCaseName
>('ClassificationStore', cases);
