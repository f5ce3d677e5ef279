/**
 * The approval console of `--serve` (issue 23, item 8): the gateway kernel with the interchange
 * plugin's approve/reject routes, the humans signed in through the development issuer. Real
 * servers on port 0: the three A2A assistants, the console and the issuer; alice's assistant asks
 * bob's over A2A, and bob — only bob — decides.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Exchange } from '@agentgov/core';
import { pendingApproval } from '@agentgov/interchange';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, startServe } from '../src/serve';
import { signIn } from './sign-in';

describe('approval console (--serve): sign-in, and only the human asked decides', () => {
  let served: Served;
  let keys: string;
  let exchangeId: string;
  let approvalId: string;
  const cookies: Record<string, string> = {};

  const bobsRecord = async (): Promise<Exchange> =>
    (await served.assistants.bob.store.get('acme', exchangeId)) as Exchange;
  const decision = async () => pendingApproval(await bobsRecord())?.decision;
  const approve = (headers: Record<string, string>, body: unknown = { approvalId, note: 'Friday 9:00' }) =>
    fetch(`${served.console}/api/v1/exchanges/${exchangeId}/approve`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    keys = await mkdtemp(join(tmpdir(), 'interchange-console-'));
    served = await startServe({ keys });
    // alice's assistant asks bob's for a meeting over A2A: it waits for bob.
    const asked = await served.assistants.alice.node.query({
      to: 'bob-assistant',
      exchangeType: 'meeting_scheduling',
      message: { text: 'Coffee on Friday?' },
    });
    if (asked.isErr()) throw asked.error;
    const round = asked.value;
    expect(round.status).toBe('pending');
    exchangeId = round.exchange.exchangeId;
    approvalId = pendingApproval(await bobsRecord())?.request.approvalId as string;
    expect(approvalId).toEqual(expect.any(String));
    for (const user of ['alice', 'bob', 'dave']) cookies[user] = await signIn(served.console, user);
  }, 60_000);

  afterAll(async () => {
    await served?.close();
    if (keys) await rm(keys, { recursive: true, force: true });
  });

  it('without sign-in: 401 on approve, reject and the pending list; the old unauthenticated /decide is gone', async () => {
    const res = await approve({});
    expect(res.status).toBe(401);
    expect((await res.json()).error).toBe('authentication_required');
    const reject = await fetch(`${served.console}/api/v1/exchanges/${exchangeId}/reject`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(reject.status).toBe(401);
    expect((await fetch(`${served.console}/api/v1/pending`)).status).toBe(401);
    // What any local process could do before: approve on bob's behalf with no credentials.
    const old = await fetch(`${served.console}/decide`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ assistant: 'bob', exchangeId, decision: 'approved' }),
    });
    expect(old.status).toBe(404);
    // A session cookie that names no session is no sign-in either.
    expect((await approve({ cookie: `session=${'x'.repeat(43)}` })).status).toBe(401);
    expect(await decision()).toBeUndefined();
  });

  it('signed in as someone the exchange does not name as the decider: 403 for alice (who asked), 404 for dave (another tenant)', async () => {
    const asAlice = await approve({ cookie: cookies.alice as string });
    expect(asAlice.status).toBe(403);
    expect(await asAlice.json()).toMatchObject({ error: 'forbidden' });
    const rejectAsAlice = await fetch(`${served.console}/api/v1/exchanges/${exchangeId}/reject`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: cookies.alice as string },
      body: '{}',
    });
    expect(rejectAsAlice.status).toBe(403);
    expect((await approve({ cookie: cookies.dave as string })).status).toBe(404);
    // Nothing waits for alice or dave; bob sees the request.
    for (const user of ['alice', 'dave']) {
      const mine = await fetch(`${served.console}/api/v1/pending`, {
        headers: { cookie: cookies[user] as string },
      });
      expect(await mine.json()).toEqual([]);
    }
    const bobs = await fetch(`${served.console}/api/v1/pending`, {
      headers: { cookie: cookies.bob as string },
    });
    expect(await bobs.json()).toEqual([
      expect.objectContaining({ assistant: 'bob', exchangeId, approvalId, from: 'alice' }),
    ]);
    expect(await decision()).toBeUndefined();
  });

  it("bob's cookie does not decide from another origin or without JSON (cross-site request forgery)", async () => {
    const bob = cookies.bob as string;
    const cases: Record<string, string>[] = [
      { cookie: bob, origin: new URL(served.agents.alice).origin },
      { cookie: bob, origin: 'null' },
      { cookie: bob, 'sec-fetch-site': 'same-site' },
      { cookie: bob, 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of cases) {
      const res = await approve(headers);
      expect({ headers, status: res.status }).toEqual({ headers, status: 403 });
    }
    // A cross-site form can post text/plain without a preflight: refused.
    const form = await fetch(`${served.console}/api/v1/exchanges/${exchangeId}/approve`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', cookie: bob },
      body: JSON.stringify({ approvalId }),
    });
    expect(form.status).toBe(415);
    expect(form.headers.get('x-request-id')).toMatch(/\S/);
    expect(await form.json()).toMatchObject({ error: 'unsupported_media_type' });
    expect(await decision()).toBeUndefined();
  });

  it('bob, signed in, approves from the console page’s origin; the decision is his and alice collects the answer', async () => {
    const res = await approve({
      cookie: cookies.bob as string,
      origin: served.console,
      'sec-fetch-site': 'same-origin',
    });
    expect(res.status).toBe(200);
    expect(await decision()).toMatchObject({
      decision: 'approved',
      by: 'bob',
      approvalId,
      note: 'Friday 9:00',
    });
    // Recorded in bob's audit log, as bob.
    expect(served.assistants.bob.audit.entries.at(-1)).toMatchObject({
      tenantId: 'acme',
      userId: 'bob',
      outcome: 'success',
    });
    // Single use: a second approval finds nothing pending.
    expect((await approve({ cookie: cookies.bob as string })).status).toBe(404);
    const collected = (await served.assistants.alice.node.collect(exchangeId))._unsafeUnwrap();
    expect(collected.status).toBe('answered');
    expect(collected.reply?.commitment).toEqual({ action: 'meeting_scheduling', detail: 'Friday 9:00' });
  });

  it('bob rejects another request the same way: the exchange ends denied', async () => {
    const asked = await served.assistants.alice.node.query({
      to: 'bob-assistant',
      exchangeType: 'meeting_scheduling',
      message: { text: 'Lunch on Saturday?' },
    });
    if (asked.isErr()) throw asked.error;
    const id = asked.value.exchange.exchangeId;
    const reject = (cookie: string | undefined) =>
      fetch(`${served.console}/api/v1/exchanges/${id}/reject`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
        body: JSON.stringify({ note: 'busy' }),
      });
    expect((await reject(undefined)).status).toBe(401);
    expect((await reject(cookies.alice)).status).toBe(403);
    const res = await reject(cookies.bob);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ exchangeId: id, outcome: 'denied' });
  });

  it('serves the sign-in page and starts the login at the development issuer', async () => {
    const page = await fetch(`${served.console}/`);
    expect(page.headers.get('content-security-policy')).toBe("default-src 'self'");
    expect(await page.text()).toContain('<script src="/console.js">');
    expect(await (await fetch(`${served.console}/console.js`)).text()).toContain("'/auth/login'");
    const login = await fetch(`${served.console}/api/v1/auth/login`, { redirect: 'manual' });
    expect(login.status).toBe(302);
    expect(login.headers.get('location')).toMatch(new RegExp(`^${served.issuer}/auth\\?`));
  });
});
