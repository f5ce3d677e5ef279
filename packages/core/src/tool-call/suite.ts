import { expect } from 'vitest';
import { newId } from '../ids';
import { defineConformanceSuite, STRING_255, UNICODE_SAMPLES } from '../testing/conformance';
import type { ToolCallInbox } from './port';
import type { ToolApprovalKey, ToolApprovalRequest } from './schema';

const A = 'tenant-a';
const B = 'tenant-b';
const T0 = Date.parse('2025-11-12T10:00:00.000Z');
/** `seconds` after T0. */
const at = (seconds: number): Date => new Date(T0 + seconds * 1000);
const iso = (seconds: number): string => at(seconds).toISOString();
const DIGEST = `sha256:${'ab'.repeat(32)}`;
const OTHER_DIGEST = `sha256:${'cd'.repeat(32)}`;

const key = (over: Partial<ToolApprovalKey> = {}): ToolApprovalKey => ({
  tenantId: A,
  userId: 'alice',
  policyTool: 'files__delete_file',
  argumentsDigest: DIGEST,
  ...over,
});
const req = (over: Partial<ToolApprovalRequest> = {}): ToolApprovalRequest => ({
  ...key(),
  tool: 'files__delete_file',
  upstream: 'files',
  reason: 'deleting needs a human',
  ttlMs: 60_000,
  ...over,
});

const cases = {
  'request/get: every field round-trips (unicode, 255 chars); another tenant or an unknown id reads nothing':
    async (inbox: ToolCallInbox) => {
      const a = await inbox.request(
        req({
          userId: UNICODE_SAMPLES[0],
          tool: 'Files__Delete_File',
          upstream: 'files-東京',
          reason: `${UNICODE_SAMPLES.join(' ')} ${STRING_255}`,
        }),
        at(0),
      );
      expect(a).toEqual({
        id: a.id,
        tenantId: A,
        userId: UNICODE_SAMPLES[0],
        tool: 'Files__Delete_File',
        policyTool: 'files__delete_file',
        upstream: 'files-東京',
        argumentsDigest: DIGEST,
        reason: `${UNICODE_SAMPLES.join(' ')} ${STRING_255}`,
        status: 'pending',
        createdAt: iso(0),
        expiresAt: iso(60),
      });
      expect(a.id.length).toBeGreaterThan(0);
      expect(await inbox.get(A, a.id, at(1))).toEqual(a);
      expect(await inbox.get(B, a.id, at(1))).toBeUndefined();
      expect(await inbox.get(A, newId(), at(1))).toBeUndefined();
    },
  'arguments: the canonical arguments given to request come back from get, list and decide; none given, none kept':
    async (inbox: ToolCallInbox) => {
      // Canonical JSON whose first key ("_") pads it far past any cut a display might make: the
      // inbox keeps the whole text, every character as given (escapes and unicode included).
      const text = JSON.stringify({ _: 'x'.repeat(10_000), note: UNICODE_SAMPLES.join(' '), path: '/' });
      const a = await inbox.request(req({ arguments: text }), at(0));
      expect(a.arguments).toBe(text);
      expect((await inbox.get(A, a.id, at(1)))?.arguments).toBe(text);
      const listed = await inbox.list(A, at(1), { status: 'pending' });
      expect(listed.map((l) => [l.id, l.arguments])).toEqual([[a.id, text]]);
      // Asked again while pending (same key, so the same text): the stored arguments stay.
      const again = await inbox.request(req({ arguments: text }), at(2));
      expect(again).toEqual(a);
      const decided = await inbox.decide(A, a.id, { approved: true, by: 'root' }, at(3));
      expect(decided?.arguments).toBe(text);
      expect((await inbox.consume(key(), at(4)))?.arguments).toBe(text);
      // Requested without arguments (a caller from before they were kept): none — not null, not ''.
      const bare = await inbox.request(req({ argumentsDigest: OTHER_DIGEST }), at(5));
      expect(bare.arguments).toBeUndefined();
      expect((await inbox.get(A, bare.id, at(6)))?.arguments).toBeUndefined();
      const bareListed = (await inbox.list(A, at(6))).find((l) => l.id === bare.id);
      expect(bareListed).toMatchObject({ id: bare.id, status: 'pending' });
      expect(bareListed?.arguments).toBeUndefined();
      const bareDecided = await inbox.decide(A, bare.id, { approved: false, by: 'root' }, at(7));
      expect(bareDecided).toMatchObject({ id: bare.id, status: 'rejected' });
      expect(bareDecided?.arguments).toBeUndefined();
    },
  'request: an unexpired pending approval of the same key is answered instead; any other key is new': async (
    inbox: ToolCallInbox,
  ) => {
    const a = await inbox.request(req(), at(0));
    expect((await inbox.request(req({ reason: 'again' }), at(10))).id).toBe(a.id);
    const others = [
      req({ argumentsDigest: OTHER_DIGEST }),
      req({ userId: 'bob' }),
      req({ policyTool: 'files__read_file', tool: 'files__read_file' }),
      req({ tenantId: B }),
    ];
    const ids = new Set([a.id]);
    for (const o of others) ids.add((await inbox.request(o, at(11))).id);
    expect(ids.size).toBe(5);
    // Once lapsed, a request opens a new approval (the old one reads as expired).
    const fresh = await inbox.request(req(), at(60));
    expect(fresh.id).not.toBe(a.id);
    expect(fresh).toMatchObject({ status: 'pending', createdAt: iso(60), expiresAt: iso(120) });
    expect((await inbox.get(A, a.id, at(60)))?.status).toBe('expired');
  },
  'request: once decided, the same key opens a new approval': async (inbox: ToolCallInbox) => {
    const a = await inbox.request(req(), at(0));
    await inbox.decide(A, a.id, { approved: false, by: 'alice' }, at(1));
    const b = await inbox.request(req(), at(2));
    expect(b.id).not.toBe(a.id);
    expect(b.status).toBe('pending');
  },
  'decide: records the decision on a pending approval once; decided, expired, unknown or another tenant’s → undefined':
    async (inbox: ToolCallInbox) => {
      const a = await inbox.request(req(), at(0));
      expect(await inbox.decide(B, a.id, { approved: true, by: 'root' }, at(1))).toBeUndefined();
      expect(await inbox.decide(A, newId(), { approved: true, by: 'root' }, at(1))).toBeUndefined();
      const decided = await inbox.decide(A, a.id, { approved: true, by: 'root', note: 'ok ✅' }, at(2));
      expect(decided).toEqual({
        ...a,
        status: 'approved',
        decidedAt: iso(2),
        decidedBy: 'root',
        note: 'ok ✅',
      });
      expect(await inbox.get(A, a.id, at(3))).toEqual(decided);
      // Decided once: a second decision (either way) is refused and changes nothing.
      expect(await inbox.decide(A, a.id, { approved: false, by: 'mallory' }, at(3))).toBeUndefined();
      expect(await inbox.get(A, a.id, at(3))).toEqual(decided);
      const r = await inbox.request(req({ userId: 'bob' }), at(4));
      const rejected = await inbox.decide(A, r.id, { approved: false, by: 'bob' }, at(5));
      expect(rejected).toMatchObject({ status: 'rejected', decidedBy: 'bob', decidedAt: iso(5) });
      expect(rejected?.note).toBeUndefined();
      // An approval decided at or after its expiry is not decided.
      const late = await inbox.request(req({ userId: 'carol' }), at(10));
      expect(await inbox.decide(A, late.id, { approved: true, by: 'carol' }, at(70))).toBeUndefined();
      expect((await inbox.get(A, late.id, at(70)))?.status).toBe('expired');
      expect((await inbox.get(A, late.id, at(69)))?.status).toBe('pending');
    },
  'consume: only an approved, unexpired approval of exactly this key, once': async (inbox: ToolCallInbox) => {
    const a = await inbox.request(req(), at(0));
    expect(await inbox.consume(key(), at(1))).toBeUndefined(); // still pending
    await inbox.decide(A, a.id, { approved: true, by: 'root' }, at(2));
    for (const other of [
      key({ argumentsDigest: OTHER_DIGEST }),
      key({ userId: 'bob' }),
      key({ policyTool: 'files__read_file' }),
      key({ tenantId: B }),
    ]) {
      expect(await inbox.consume(other, at(3))).toBeUndefined();
    }
    const used = await inbox.consume(key(), at(3));
    expect(used).toMatchObject({ id: a.id, status: 'consumed', decidedBy: 'root', consumedAt: iso(3) });
    expect(await inbox.consume(key(), at(4))).toBeUndefined();
    expect(await inbox.get(A, a.id, at(4))).toMatchObject({ status: 'consumed', consumedAt: iso(3) });
    // A consumed approval never reads as expired.
    expect((await inbox.get(A, a.id, at(600)))?.status).toBe('consumed');
  },
  'consume: of several approved approvals of one key, the oldest requested first (the last of them in list)':
    async (inbox: ToolCallInbox) => {
      // A pending request of a key is asked again as it is: each is approved before the next is asked.
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const a = await inbox.request(req(), at(i));
        await inbox.decide(A, a.id, { approved: true, by: 'root' }, at(i));
        ids.push(a.id);
      }
      const listed = await inbox.list(A, at(6), { userIds: ['alice'], status: 'approved' });
      expect(listed.map((a) => a.id)).toEqual([...ids].reverse());
      for (const id of ids) expect((await inbox.consume(key(), at(6)))?.id).toBe(id);
      expect(await inbox.consume(key(), at(6))).toBeUndefined();
    },
  'list: `call` keeps only approvals of that tool with those arguments; `limit` the newest of them': async (
    inbox: ToolCallInbox,
  ) => {
    const a = await inbox.request(req(), at(0));
    await inbox.decide(A, a.id, { approved: false, by: 'root' }, at(1));
    const b = await inbox.request(req(), at(2));
    await inbox.decide(A, b.id, { approved: false, by: 'root' }, at(3));
    await inbox.request(req({ argumentsDigest: OTHER_DIGEST }), at(4));
    await inbox.request(req({ policyTool: 'files__read_file' }), at(5));
    const call = { policyTool: 'files__delete_file', argumentsDigest: DIGEST };
    expect((await inbox.list(A, at(6), { userIds: ['alice'], call })).map((x) => x.id)).toEqual([b.id, a.id]);
    expect(
      (await inbox.list(A, at(6), { userIds: ['alice'], call, status: 'rejected', limit: 1 })).map(
        (x) => x.id,
      ),
    ).toEqual([b.id]);
    expect(
      await inbox.list(A, at(6), {
        userIds: ['alice'],
        call: { ...call, argumentsDigest: `sha256:${'ef'.repeat(32)}` },
      }),
    ).toEqual([]);
  },
  'consume: a rejected approval, or an approved one past its expiry, is never consumed': async (
    inbox: ToolCallInbox,
  ) => {
    const r = await inbox.request(req(), at(0));
    await inbox.decide(A, r.id, { approved: false, by: 'alice' }, at(1));
    expect(await inbox.consume(key(), at(2))).toBeUndefined();
    const b = await inbox.request(req({ userId: 'bob' }), at(0));
    await inbox.decide(A, b.id, { approved: true, by: 'bob' }, at(1));
    expect(await inbox.consume(key({ userId: 'bob' }), at(60))).toBeUndefined();
    expect((await inbox.get(A, b.id, at(60)))?.status).toBe('expired');
    expect((await inbox.get(A, b.id, at(59)))?.status).toBe('approved');
  },
  'consume: two approvals of one key allow two calls': async (inbox: ToolCallInbox) => {
    const first = await inbox.request(req(), at(0));
    await inbox.decide(A, first.id, { approved: true, by: 'alice' }, at(1));
    const second = await inbox.request(req(), at(2));
    expect(second.id).not.toBe(first.id);
    await inbox.decide(A, second.id, { approved: true, by: 'alice' }, at(3));
    const ids = [(await inbox.consume(key(), at(4)))?.id, (await inbox.consume(key(), at(4)))?.id];
    expect(new Set(ids)).toEqual(new Set([first.id, second.id]));
    expect(await inbox.consume(key(), at(5))).toBeUndefined();
  },
  'consume: concurrent consumers of one approval — exactly one gets it': async (inbox: ToolCallInbox) => {
    const a = await inbox.request(req(), at(0));
    await inbox.decide(A, a.id, { approved: true, by: 'alice' }, at(1));
    const results = await Promise.all(Array.from({ length: 12 }, () => inbox.consume(key(), at(2))));
    const won = results.filter((r) => r !== undefined);
    expect(won).toHaveLength(1);
    expect(won[0]?.id).toBe(a.id);
  },
  'decide: concurrent deciders of one approval — exactly one wins, and it is what is stored': async (
    inbox: ToolCallInbox,
  ) => {
    const a = await inbox.request(req(), at(0));
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        inbox.decide(A, a.id, { approved: i % 2 === 0, by: `admin-${i}` }, at(1)),
      ),
    );
    const won = results.filter((r) => r !== undefined);
    expect(won).toHaveLength(1);
    expect(await inbox.get(A, a.id, at(2))).toEqual(won[0]);
  },
  'request: concurrent requests of one key — one pending approval': async (inbox: ToolCallInbox) => {
    const results = await Promise.all(Array.from({ length: 12 }, () => inbox.request(req(), at(0))));
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    expect(await inbox.list(A, at(1), { status: 'pending' })).toHaveLength(1);
  },
  'list: the tenant’s approvals newest first, filtered by users, status as of now, and limit': async (
    inbox: ToolCallInbox,
  ) => {
    const a1 = await inbox.request(req(), at(0));
    const b1 = await inbox.request(req({ userId: 'bob' }), at(1));
    const a2 = await inbox.request(req({ argumentsDigest: OTHER_DIGEST, ttlMs: 600_000 }), at(1));
    await inbox.request(req({ tenantId: B }), at(2));
    await inbox.decide(A, b1.id, { approved: true, by: 'bob' }, at(3));
    const ids = async (...args: Parameters<ToolCallInbox['list']>) =>
      (await inbox.list(...args)).map((a) => a.id);
    expect(await ids(A, at(4))).toEqual([a2.id, b1.id, a1.id]);
    expect(await ids(A, at(4), { userIds: ['alice'] })).toEqual([a2.id, a1.id]);
    expect(await ids(A, at(4), { userIds: [] })).toEqual([]);
    expect(await ids(A, at(4), { status: 'approved' })).toEqual([b1.id]);
    expect(await ids(A, at(4), { status: 'pending', userIds: ['alice', 'bob'] })).toEqual([a2.id, a1.id]);
    expect(await ids(A, at(4), { limit: 2 })).toEqual([a2.id, b1.id]);
    // At 60 s a1 has lapsed, b1 (approved at 3 s, expiring at 61 s) not yet.
    const later = await inbox.list(A, at(60));
    expect(later.map((a) => [a.id, a.status])).toEqual([
      [a2.id, 'pending'],
      [b1.id, 'approved'],
      [a1.id, 'expired'],
    ]);
    expect(await ids(A, at(61), { status: 'expired' })).toEqual([b1.id, a1.id]);
    expect(await ids(A, at(61), { status: 'pending' })).toEqual([a2.id]);
    expect(await ids(B, at(4))).toHaveLength(1);
  },
  'notices: recorded with their time, newest first, by tenant and users, limited': async (
    inbox: ToolCallInbox,
  ) => {
    const base = {
      tenantId: A,
      userId: 'alice',
      tool: 'mail__send_message',
      upstream: 'mail',
      argumentsDigest: DIGEST,
      outcome: 'success' as const,
    };
    const n1 = await inbox.notice(base, at(0));
    expect(n1).toEqual({ ...base, id: n1.id, at: iso(0) });
    const n2 = await inbox.notice({ ...base, userId: UNICODE_SAMPLES[1], outcome: 'error' }, at(1));
    const n3 = await inbox.notice({ ...base, tool: 'mail__send_東京' }, at(1));
    await inbox.notice({ ...base, tenantId: B }, at(2));
    expect(await inbox.notices(A)).toEqual([n3, n2, n1]);
    expect((await inbox.notices(A, { userIds: ['alice'] })).map((n) => n.id)).toEqual([n3.id, n1.id]);
    expect(await inbox.notices(A, { userIds: [] })).toEqual([]);
    expect((await inbox.notices(A, { limit: 1 })).map((n) => n.id)).toEqual([n3.id]);
    expect(await inbox.notices(B)).toHaveLength(1);
    expect(await inbox.notices('tenant-none')).toEqual([]);
  },
} satisfies Record<string, (inbox: ToolCallInbox) => Promise<void>>;

export type ToolCallInboxCaseName = keyof typeof cases;
/** The ToolCallInbox contract (pending tool-call approvals and notices of `@agentgov/mcp`). */
export const describeToolCallInboxConformance = defineConformanceSuite<ToolCallInbox, ToolCallInboxCaseName>(
  'ToolCallInbox',
  cases,
);
