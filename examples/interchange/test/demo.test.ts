import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type DecisionEngine,
  InMemoryAuditSink,
  InMemoryExchangeStore,
  InMemoryOrgDirectory,
  ok,
} from '@agentgov/core';
import { InterchangeNode, KeyRing, parseAgentIdentityConfig, signingKeyFromJwk } from '@agentgov/interchange';
import { A2ATransport } from '@agentgov/interchange/a2a';
import { afterAll, describe, expect, it } from 'vitest';
import { signIn } from './sign-in';

const demo = fileURLToPath(new URL('..', import.meta.url));
const EXT = 'https://agentgov.dev/a2a/extensions/interchange/v1';

describe('interchange demo (in-process)', () => {
  it('runs the four scenarios and prints both sides’ audit entries', () => {
    const r = spawnSync('pnpm', ['exec', 'tsx', 'src/main.ts'], { cwd: demo, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(
      '"reason":"classification_exceeded","description":"drive.release_plan is confidential, above internal"',
    );
    // The README's withheld items, both sides: alice's two, and bob's confidential roadmap.
    expect(r.stdout).toMatch(
      /withheld by alice's assistant: .*drive\.release_plan is confidential.*hr\.salary_band is restricted, above internal/,
    );
    expect(r.stdout).toContain(
      `withheld by bob's assistant: [{"reason":"classification_exceeded","description":"drive.roadmap_draft is confidential, above internal"}]`,
    );
    // A refused commitment_request is recorded with its type's limit (1), not the default 3.
    expect(r.stdout).toMatch(/event=refused exchange=\w+ type=commitment_request round=0\/1 /);
    expect(r.stdout).not.toMatch(/type=commitment_request round=\d+\/3/);
    expect(r.stdout).toContain('round 3: answered, exchange escalated (round limit reached)');
    expect(r.stdout).toContain('round 4: EXCHANGE_ROUND_LIMIT');
    expect(r.stdout).toContain("alice's assistant: pending");
    expect(r.stdout).toContain('an agent-written commitment: COMMITMENT_REQUIRES_HUMAN');
    expect(r.stdout).toMatch(/"kind":"human_decision".*"decision":"approved","by":"bob"/);
    expect(r.stdout).toContain('alice → dave: CROSS_ENTERPRISE_BLOCKED (HTTP 403)');
    expect(r.stdout).toMatch(
      /# audit entries on alice's side\nagent_exchange user=alice side=initiator event=sent/,
    );
    expect(r.stdout).toMatch(
      /# audit entries on bob's side\nagent_exchange user=bob side=responder event=received/,
    );
  }, 60_000);
});

describe('interchange demo (--serve)', () => {
  let child: ChildProcess | undefined;
  let keys = '';
  afterAll(async () => {
    if (child?.pid) process.kill(-child.pid, 'SIGTERM');
    if (keys) await rm(keys, { recursive: true, force: true });
  });

  it('serves governed A2A agents: prints ports and keys, refuses a plain client, bob signs in and approves through the console', async () => {
    keys = await mkdtemp(join(tmpdir(), 'interchange-keys-'));
    child = spawn('pnpm', ['exec', 'tsx', 'src/main.ts', '--serve', '--keys', keys], {
      cwd: demo,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const ready = await new Promise<{
      agents: Record<string, string>;
      console: string;
      issuer: string;
      keys: string;
    }>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`not ready: ${out}`)), 45_000);
      child?.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        const line = out.split('\n').find((l) => l.startsWith('{"ready":true'));
        if (line) {
          clearTimeout(timer);
          resolve(JSON.parse(line));
        }
      });
      child?.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
    expect(ready.keys).toBe(keys);
    const jwks = JSON.parse(await readFile(join(keys, 'jwks.json'), 'utf8'));
    expect(jwks.keys.map((k: { kid: string }) => k.kid)).toEqual(
      expect.arrayContaining(['acme/bob-assistant', 'acme/guest-assistant']),
    );
    const card = await (await fetch(new URL('.well-known/agent-card.json', ready.agents.bob))).json();
    expect(card.capabilities.extensions[0]).toMatchObject({ uri: EXT, required: true });
    // A plain A2A client that knows nothing of the extension is refused with a clear reason.
    const plain = await fetch(ready.agents.bob as string, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
      }),
    });
    expect((await plain.json()).error).toMatchObject({
      code: -32040,
      data: { reason: 'extension_not_activated' },
    });
    // The console answers only the humans who signed in.
    expect((await fetch(`${ready.console}/api/v1/pending`)).status).toBe(401);

    // Any client holding a registered key (here the guest's) asks bob for a meeting over A2A…
    const ring = new KeyRing();
    for (const k of jwks.keys) ring.add(k);
    const signingKey = await signingKeyFromJwk(
      JSON.parse(await readFile(join(keys, 'guest.private.jwk.json'), 'utf8')),
    );
    const allow: DecisionEngine = {
      name: 'guest',
      health: async () => true,
      decide: async () => ok({ allow: true, deny: false, reason: 'guest side', constraints: {} }),
    };
    const guest = new InterchangeNode({
      agentId: 'guest-assistant',
      userId: 'guest',
      tenantId: 'acme',
      orgUnit: 'eng',
      identityConfig: parseAgentIdentityConfig(undefined),
      signingKey,
      keys: ring,
      // The guest's view of its tenant: where bob sits (org unit from the directory, not bob's card).
      directory: InMemoryOrgDirectory.fromDefinitions({ tenant: 'acme', orgs: { eng: { users: ['bob'] } } }),
      store: new InMemoryExchangeStore(),
      audit: new InMemoryAuditSink(),
      engine: allow,
      transport: new A2ATransport({
        signingKey,
        keys: ring,
        resolve: (id) => (id === 'bob-assistant' ? ready.agents.bob : undefined),
      }),
    });
    const asked = await guest.query({
      to: 'bob-assistant',
      exchangeType: 'meeting_scheduling',
      message: { text: 'Coffee on Friday?' },
    });
    expect(asked._unsafeUnwrap().status).toBe('pending');
    const exchangeId = asked._unsafeUnwrap().exchange.exchangeId;
    // No local process decides for bob without his sign-in: the unauthenticated `/decide` of
    // earlier versions is gone, and the approval route wants a session.
    const anonymous = await fetch(`${ready.console}/decide`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ assistant: 'bob', exchangeId, decision: 'approved' }),
    });
    expect(anonymous.status).toBe(404);
    const unsigned = await fetch(`${ready.console}/api/v1/exchanges/${exchangeId}/approve`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(unsigned.status).toBe(401);
    // …bob signs in (the development issuer's form), approves in the console, and the guest
    // collects the signed answer.
    const bob = await signIn(ready.console, 'bob');
    const pending = await (
      await fetch(`${ready.console}/api/v1/pending`, { headers: { cookie: bob } })
    ).json();
    expect(pending).toEqual([
      expect.objectContaining({
        assistant: 'bob',
        exchangeId,
        exchangeType: 'meeting_scheduling',
        from: 'guest',
      }),
    ]);
    const approve = await fetch(`${ready.console}/api/v1/exchanges/${exchangeId}/approve`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: bob },
      body: JSON.stringify({ approvalId: pending[0].approvalId, note: 'Friday 9:00' }),
    });
    expect(approve.status).toBe(200);
    const c = await guest.collect(exchangeId);
    const done = c._unsafeUnwrap();
    expect(done.status).toBe('answered');
    expect(done.reply?.commitment).toEqual({ action: 'meeting_scheduling', detail: 'Friday 9:00' });
  }, 90_000);
});
