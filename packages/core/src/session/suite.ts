import { expect } from 'vitest';
import {
  defineConformanceSuite,
  duplicateKeyCase,
  type RecordAccess,
  roundTripCase,
  STRING_255,
  UNICODE_SAMPLES,
} from '../testing/conformance';
import { FIXTURE_EPOCH, isoAt, makeSession, sha256Hex } from '../testing/fixtures';
import type { SessionRecord, SessionStore } from './port';

const sessions: RecordAccess<SessionStore, SessionRecord> = {
  write: (store, s) => store.create(s),
  read: (store, s) => store.get(s.idHash),
};

const cases = {
  'create/get: every field round-trips (roles array, nullables, unicode)': roundTripCase(
    sessions,
    () => {
      const rich = makeSession({
        tenantId: 'tenant-a',
        userId: STRING_255,
        email: 'zoë@exämple.com',
        roles: ['enterprise_admin', 'org_admin', 'team_lead', 'user'],
        orgUnit: UNICODE_SAMPLES[1],
        team: UNICODE_SAMPLES[2],
        createdAt: '2025-11-12T13:14:15.016Z',
        expiresAt: '2025-11-12T14:14:15.016Z',
        lastSeenAt: '2025-11-12T13:44:15.999Z',
        absoluteExpiresAt: '2025-11-13T01:14:15.016Z',
        userAgent: `${UNICODE_SAMPLES[0]} ${'x'.repeat(400)}`,
        ip: '2001:db8::1',
      });
      const plain = makeSession({ orgUnit: null, team: null, roles: [], userAgent: null, ip: null });
      return [rich, plain];
    },
    () => makeSession({ idHash: sha256Hex('unknown') }),
  ),
  'create: a duplicate idHash throws and keeps the original': duplicateKeyCase(
    sessions,
    () => makeSession(),
    (s) => ({ ...s, userId: 'mallory' }),
  ),
  'get: an expired session is still returned': async (store: SessionStore) => {
    const s = makeSession({ createdAt: '2000-01-01T00:00:00.000Z', expiresAt: '2000-01-01T01:00:00.000Z' });
    await store.create(s);
    expect(await store.get(s.idHash)).toEqual(s);
  },
  'delete: removes and returns true; false when absent': async (store: SessionStore) => {
    const s = makeSession();
    const keep = makeSession();
    await store.create(s);
    await store.create(keep);
    expect(await store.delete(s.idHash)).toBe(true);
    expect(await store.get(s.idHash)).toBeUndefined();
    expect(await store.delete(s.idHash)).toBe(false);
    expect(await store.get(keep.idHash)).toEqual(keep);
  },
  'deleteExpired: removes sessions that expired before now and counts them': async (store: SessionStore) => {
    const now = new Date(FIXTURE_EPOCH + 60 * 60_000); // isoAt(60)
    const expired = [makeSession({ expiresAt: isoAt(0) }), makeSession({ expiresAt: isoAt(59, 59_999) })];
    const atNow = makeSession({ expiresAt: isoAt(60) });
    const live = makeSession({ expiresAt: isoAt(61) });
    for (const s of [...expired, atNow, live]) await store.create(s);
    expect(await store.deleteExpired(now)).toBe(2);
    for (const s of expired) expect(await store.get(s.idHash)).toBeUndefined();
    expect(await store.get(atNow.idHash)).toEqual(atNow);
    expect(await store.get(live.idHash)).toEqual(live);
    expect(await store.deleteExpired(now)).toBe(0);
  },
  'copy: mutating inputs or returned sessions does not change the store': async (store: SessionStore) => {
    const s = makeSession({ roles: ['user'] });
    const snapshot = structuredClone(s);
    await store.create(s);
    s.roles.push('enterprise_admin');
    const got = (await store.get(s.idHash)) as SessionRecord;
    expect(got).toEqual(snapshot);
    got.roles.push('org_admin');
    got.expiresAt = isoAt(9999);
    expect(await store.get(s.idHash)).toEqual(snapshot);
  },
  'touch: moves lastSeenAt and expiresAt, keeps everything else; false for an absent session': async (
    store: SessionStore,
  ) => {
    const s = makeSession({ lastSeenAt: isoAt(0), expiresAt: isoAt(60) });
    const other = makeSession();
    await store.create(s);
    await store.create(other);
    expect(await store.touch(s.idHash, isoAt(40, 123), isoAt(100, 123))).toBe(true);
    expect(await store.get(s.idHash)).toEqual({
      ...s,
      lastSeenAt: isoAt(40, 123),
      expiresAt: isoAt(100, 123),
    });
    expect(await store.get(other.idHash)).toEqual(other);
    expect(await store.touch(sha256Hex('absent'), isoAt(1), isoAt(61))).toBe(false);
    expect(await store.get(sha256Hex('absent'))).toBeUndefined();
  },
  'touch: never recreates a deleted session': async (store: SessionStore) => {
    const s = makeSession();
    await store.create(s);
    await store.delete(s.idHash);
    expect(await store.touch(s.idHash, isoAt(10), isoAt(70))).toBe(false);
    expect(await store.get(s.idHash)).toBeUndefined();
  },
  'touch: a touched session is deleted by deleteExpired only after its new expiry': async (
    store: SessionStore,
  ) => {
    const s = makeSession({ expiresAt: isoAt(60) });
    await store.create(s);
    await store.touch(s.idHash, isoAt(50), isoAt(110));
    expect(await store.deleteExpired(new Date(FIXTURE_EPOCH + 100 * 60_000))).toBe(0);
    expect(await store.get(s.idHash)).toBeDefined();
    expect(await store.deleteExpired(new Date(FIXTURE_EPOCH + 111 * 60_000))).toBe(1);
    expect(await store.get(s.idHash)).toBeUndefined();
  },
  'listByUser: only that user in that tenant, newest first, expired included': async (
    store: SessionStore,
  ) => {
    const older = makeSession({ tenantId: 't1', userId: 'u1', createdAt: isoAt(0), expiresAt: isoAt(1) });
    const newer = makeSession({ tenantId: 't1', userId: 'u1', createdAt: isoAt(30), expiresAt: isoAt(90) });
    const otherTenant = makeSession({ tenantId: 't2', userId: 'u1', createdAt: isoAt(10) });
    const otherUser = makeSession({ tenantId: 't1', userId: 'u2', createdAt: isoAt(10) });
    // Separators inside ids must not let one (tenant, user) pair read another's sessions.
    const tricky = makeSession({ tenantId: 't1:u1', userId: '', createdAt: isoAt(10) });
    const tricky2 = makeSession({ tenantId: 't1', userId: 'u1:x', createdAt: isoAt(10) });
    for (const s of [older, newer, otherTenant, otherUser, tricky, tricky2]) await store.create(s);
    expect(await store.listByUser('t1', 'u1')).toEqual([newer, older]);
    expect(await store.listByUser('t2', 'u1')).toEqual([otherTenant]);
    expect(await store.listByUser('t1', 'nobody')).toEqual([]);
    await store.delete(newer.idHash);
    expect(await store.listByUser('t1', 'u1')).toEqual([older]);
    expect(await store.deleteExpired(new Date(FIXTURE_EPOCH + 5 * 60_000))).toBe(1);
    expect(await store.listByUser('t1', 'u1')).toEqual([]);
  },
} satisfies Record<string, (store: SessionStore) => Promise<void>>;

export type SessionStoreCaseName = keyof typeof cases;
export const describeSessionStoreConformance = defineConformanceSuite<SessionStore, SessionStoreCaseName>(
  'SessionStore',
  cases,
);
