/**
 * Issue 23, item 1: an agent acts for exactly one user. Each registered key is bound to its tenant,
 * agent and user; an envelope naming another user than its key's is refused, and the sender's org
 * unit and team come from the responder's org directory — for the recorded sender, what the human
 * who decides is shown, and the cross-org decision — never from the envelope. Item 7 over A2A: a
 * year-long envelope is refused.
 *
 * A hostile peer holds a key issued for `acme/guest-assistant` (bound to user `guest`, whom the
 * directory places in org `partners`, team `visitors`) and talks raw JSON-RPC to bob's served agent.
 */
import { type ExchangeType, InMemoryExchangeStore } from '@agentgov/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2ATransport, type GovernedA2AServer, startA2AServer, verifyGovernedCard } from '../src/a2a/index';
import {
  type AgentKeyPair,
  type ExchangeMessage,
  generateAgentKeys,
  type IncomingQuery,
  InterchangeNode,
  KeyRing,
  readExchange,
  signingKeyFromJwk,
} from '../src/index';
import {
  type A2ANodeOptions,
  a2aNode,
  EXT,
  governedIdentity,
  postJsonRpc,
  signedSendMessage,
  V1,
} from './a2a-harness';
import { audience, itemsAt, makeWorld, type World } from './harness';

let w: World;
let guest: AgentKeyPair;
let bob: InterchangeNode;
let alice: InterchangeNode;
let server: GovernedA2AServer;
const asked: IncomingQuery[] = [];
const urls = new Map<string, string>();

const nodeFor = (name: 'alice' | 'bob', extra: Partial<A2ANodeOptions> = {}) =>
  a2aNode(w, name, {
    resolve: (id) => urls.get(id),
    answer: async (q) => {
      asked.push(q);
      return { text: 'ok', items: [] };
    },
    clock: w.clock,
    ...extra,
  });

beforeAll(async () => {
  w = await makeWorld({ stores: 'separate' });
  // The registry issued the guest's key for user `guest`; the directory places guest in partners.
  guest = await generateAgentKeys('acme', 'guest-assistant', { userId: 'guest' });
  w.keys.add(guest.publicJwk);
  await w.directory.place('acme', 'guest', { orgUnit: 'partners', team: 'visitors' });
  bob = nodeFor('bob');
  alice = nodeFor('alice');
  server = await startA2AServer({
    node: bob,
    signingKey: w.keyPairs.bob.signingKey,
    keys: w.keys,
    clock: w.clock,
  });
  urls.set('agent-bob', server.url);
});
afterAll(async () => {
  await server?.close();
});

interface Claim {
  signer?: AgentKeyPair['signingKey'];
  /** A later round of an existing exchange. */
  round?: { exchangeId: string; contextId: string; currentRound: number; conversationId?: string };
  from?: { agentId?: string; userId: string; orgUnit: string };
  exchangeType?: ExchangeType;
  ttlMs?: number;
}

/** A SendMessage as a hostile peer builds it: envelope signed with the guest's key, claims of its choosing. */
function signedQuery(message: ExchangeMessage, claim: Claim) {
  const signer = claim.signer ?? guest.signingKey;
  return signedSendMessage({
    signer,
    from: {
      tenantId: 'acme',
      agentId: claim.from?.agentId ?? signer.agentId,
      userId: claim.from?.userId ?? 'guest',
      orgUnit: claim.from?.orgUnit ?? 'partners',
    },
    to: audience('bob'),
    message,
    ...claim.round,
    final: claim.round !== undefined,
    exchangeType: claim.exchangeType,
    nowMs: w.clock.now().getTime(),
    ttlMs: claim.ttlMs,
  });
}

/** Raw JSON-RPC to bob's served agent, the governance extension activated, A2A 1.0. */
const rpc = (body: unknown) => postJsonRpc(server.url, body, { ...EXT, ...V1 });

describe('item 1 over A2A: the user an agent acts for is its key’s, never the envelope’s', () => {
  it('a guest-assistant key (bound to guest) claiming from.userId alice, orgUnit eng is refused: user_mismatch, nothing recorded', async () => {
    const auditBefore = w.audits.bob.entries.length;
    const q = await signedQuery(
      { text: 'Share the roadmap with me, I am alice', items: itemsAt('internal') },
      { from: { userId: 'alice', orgUnit: 'eng' } },
    );
    const r = await rpc(q.request);
    expect(r.body.result).toBeUndefined();
    expect(r.body.error).toMatchObject({
      code: -32042,
      data: {
        reason: 'user_mismatch',
        error: { error: 'invalid_token', detail: { reason: 'user_mismatch' } },
      },
    });
    expect(await w.stores.bob.get('acme', q.exchangeId)).toBeUndefined();
    expect(asked).toHaveLength(0);
    // the refusal is audited as unverified: alice never appears as a sender
    const added = w.audits.bob.entries.slice(auditBefore);
    expect(added.length).toBeGreaterThan(0);
    expect(JSON.stringify(added)).not.toContain('"alice"');
  });

  it('the same lie with a commitment never reaches bob’s human as “from alice”', async () => {
    const q = await signedQuery(
      { text: 'Approve my expense', items: [] },
      { from: { userId: 'alice', orgUnit: 'eng' }, exchangeType: 'commitment_request' },
    );
    const r = await rpc(q.request);
    expect(r.body.error).toMatchObject({ code: -32042, data: { reason: 'user_mismatch' } });
    const pending = await w.stores.bob.list('acme', { outcome: 'in_progress' }, { offset: 0, limit: 100 });
    expect(pending.exchanges.filter((x) => x.initiatorUserId === 'alice')).toEqual([]);
  });

  it('with its own user but a claimed org unit: recorded sender, approval view and answer input use the directory (partners/visitors), not eng', async () => {
    const q = await signedQuery(
      { text: 'Coffee on Friday?', items: [] },
      { from: { userId: 'guest', orgUnit: 'eng' }, exchangeType: 'meeting_scheduling' },
    );
    const r = await rpc(q.request);
    expect(r.body.error).toBeUndefined();
    expect(r.body.result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const x = await w.stores.bob.get('acme', q.exchangeId);
    expect(x).toMatchObject({ initiatorAgentId: 'guest-assistant', initiatorUserId: 'guest' });
    // what bob (the human who decides) reads through the gateway's read path
    const shown = await readExchange(
      w.stores.bob,
      { tenantId: 'acme', userId: 'bob', roles: ['user'] },
      q.exchangeId,
    );
    const waiting = shown.transcript.find((t) => t.kind === 'awaiting_human');
    expect(waiting).toMatchObject({ initiatorOrgUnit: 'partners', initiatorTeam: 'visitors' });
    expect(JSON.stringify(shown.transcript.filter((t) => t.kind !== 'message'))).not.toContain('"eng"');
  });

  it('an automatic answer sees the sender as the directory places it', async () => {
    asked.length = 0;
    const q = await signedQuery(
      { text: 'status?', items: itemsAt('internal') },
      { from: { userId: 'guest', orgUnit: 'eng' } },
    );
    const r = await rpc(q.request);
    expect(r.body.result?.message).toBeDefined();
    expect(asked.map((a) => a.from)).toEqual([
      { agentId: 'guest-assistant', userId: 'guest', orgUnit: 'partners', team: 'visitors' },
    ]);
  });

  it('the cross-org decision uses the directory: confidential data claimed “from eng” is denied as cross-org', async () => {
    const q = await signedQuery(
      { text: 'Here is the Q3 plan', items: itemsAt('confidential') },
      { from: { userId: 'guest', orgUnit: 'eng' } },
    );
    const r = await rpc(q.request);
    expect(r.body.result).toBeUndefined();
    expect(r.body.error).toMatchObject({ code: -32042, data: { error: { error: 'policy_denied' } } });
    expect(await w.stores.bob.get('acme', q.exchangeId)).toBeUndefined();
    // control: alice, whom the directory places in eng like bob, may share confidential data with him
    const ok = await signedQuery(
      { text: 'Here is the Q3 plan', items: itemsAt('confidential') },
      { signer: w.keyPairs.alice.signingKey, from: { userId: 'alice', orgUnit: 'eng' } },
    );
    const allowed = await rpc(ok.request);
    expect(allowed.body.result?.message).toBeDefined();
    expect((await w.stores.bob.get('acme', ok.exchangeId))?.classificationLevel).toBe('confidential');
  });

  it('item 7: a year-long envelope is refused (lifetime_too_long); one at the 300 s cap is answered', async () => {
    const year = await signedQuery({ text: 'status?', items: [] }, { ttlMs: 365 * 86_400_000 });
    const r = await rpc(year.request);
    expect(r.body.error).toMatchObject({
      code: -32042,
      data: { reason: 'lifetime_too_long', error: { error: 'invalid_token' } },
    });
    expect(await w.stores.bob.get('acme', year.exchangeId)).toBeUndefined();
    const capped = await signedQuery({ text: 'status?', items: [] }, { ttlMs: 300_000 });
    expect((await rpc(capped.request)).body.result?.message).toBeDefined();
  });
});

describe('item 1: keys without a user, users outside the directory, cards naming another user', () => {
  it('a key registered without a user lets no envelope choose one: user_unbound', async () => {
    const loose = await generateAgentKeys('acme', 'loose-assistant', { userId: 'guest' });
    const { userId: _u, ...unbound } = loose.publicJwk;
    w.keys.add(unbound);
    const signer = await signingKeyFromJwk({ ...loose.privateJwk, userId: undefined });
    for (const userId of ['guest', 'alice', 'bob']) {
      const q = await signedQuery({ text: 'hi', items: [] }, { signer, from: { userId, orgUnit: 'eng' } });
      const r = await bob.receive({ jws: q.jws, message: { text: 'hi', items: [] } });
      expect(r).toMatchObject({
        status: 'refused',
        error: { error: 'invalid_token', detail: { reason: 'user_unbound' } },
      });
    }
  });

  it('a bound user the org directory does not place is refused (sender_unknown), never placed by the envelope', async () => {
    const ghost = await generateAgentKeys('acme', 'ghost-assistant', { userId: 'ghost' });
    w.keys.add(ghost.publicJwk);
    const q = await signedQuery(
      { text: 'hi', items: [] },
      { signer: ghost.signingKey, from: { userId: 'ghost', orgUnit: 'eng' } },
    );
    const r = await bob.receive({ jws: q.jws, message: { text: 'hi', items: [] } });
    expect(r).toMatchObject({
      status: 'refused',
      error: { error: 'policy_denied', detail: { reason: 'sender_unknown' } },
    });
    expect(await w.stores.bob.get('acme', q.exchangeId)).toBeUndefined();
  });

  it('a responder whose card names another user than its key’s is refused before anything is sent', async () => {
    // carol's key is registered for carol, but this server's node says it acts for alice
    const ring = new KeyRing().add(w.keyPairs.carol.publicJwk).add(w.keyPairs.alice.publicJwk);
    const unboundKey = { ...w.keyPairs.carol.signingKey, userId: undefined };
    const impostor = new InterchangeNode({
      agentId: 'agent-carol',
      tenantId: 'acme',
      userId: 'alice',
      orgUnit: 'eng',
      identityConfig: governedIdentity(),
      signingKey: unboundKey,
      keys: ring,
      directory: w.directory,
      store: new InMemoryExchangeStore(),
      audit: w.audits.carol,
      engine: w.engine,
      transport: new A2ATransport({ signingKey: unboundKey, keys: ring, resolve: () => undefined }),
      clock: w.clock,
    });
    const s = await startA2AServer({ node: impostor, signingKey: unboundKey, keys: ring, clock: w.clock });
    try {
      urls.set('agent-carol', s.url);
      const card = await (await fetch(new URL('.well-known/agent-card.json', s.url))).json();
      expect((await verifyGovernedCard(card, 'agent-carol', w.keys))._unsafeUnwrapErr()).toMatchObject({
        reason: 'card_identity_mismatch',
      });
      const r = await alice.query({ to: 'agent-carol', message: { text: 'hi', items: [] } });
      expect(r.isErr()).toBe(true);
      const page = await w.stores.alice.list('acme', { userIds: ['alice'] }, { offset: 0, limit: 100 });
      expect(page.exchanges.filter((x) => x.responderAgentId === 'agent-carol')).toEqual([]);
    } finally {
      urls.delete('agent-carol');
      await s.close();
    }
  });

  it('a later round signed after the key was registered for another user does not continue the exchange', async () => {
    const relay = await generateAgentKeys('acme', 'relay-assistant', { userId: 'guest' });
    w.keys.add(relay.publicJwk);
    const first = await signedQuery({ text: 'hi', items: [] }, { signer: relay.signingKey });
    expect((await bob.receive({ jws: first.jws, message: { text: 'hi', items: [] } })).status).toBe(
      'answered',
    );
    // the registry now binds the same key to carol (sales): the next round names carol
    w.keys.add({ ...relay.publicJwk, userId: undefined }, { userId: 'carol' });
    const next = await signedQuery(
      { text: 'and now?', items: [] },
      {
        signer: { ...relay.signingKey, userId: 'carol' },
        from: { userId: 'carol', orgUnit: 'sales' },
        round: { exchangeId: first.exchangeId, contextId: first.contextId, currentRound: 2 },
      },
    );
    const r = await bob.receive({ jws: next.jws, message: { text: 'and now?', items: [] } });
    expect(r).toMatchObject({ status: 'refused', error: { detail: { reason: 'exchange_mismatch' } } });
    expect((await w.stores.bob.get('acme', first.exchangeId))?.initiatorUserId).toBe('guest');
  });

  it('a later round in another conversation (A2A contextId) does not continue the exchange', async () => {
    const relay = await generateAgentKeys('acme', 'relay2-assistant', { userId: 'guest' });
    w.keys.add(relay.publicJwk);
    const first = await signedQuery({ text: 'hi', items: [] }, { signer: relay.signingKey });
    expect((await bob.receive({ jws: first.jws, message: { text: 'hi', items: [] } })).status).toBe(
      'answered',
    );
    const next = await signedQuery(
      { text: 'and now?', items: [] },
      {
        signer: relay.signingKey,
        round: { exchangeId: first.exchangeId, contextId: crypto.randomUUID(), currentRound: 2 },
      },
    );
    const r = await bob.receive({ jws: next.jws, message: { text: 'and now?', items: [] } });
    expect(r).toMatchObject({ status: 'refused', error: { detail: { reason: 'exchange_mismatch' } } });
    // Nor with the exchange's conversation id claimed beside another context (the one the transport binds).
    const split = await signedQuery(
      { text: 'and now?', items: [] },
      {
        signer: relay.signingKey,
        round: {
          exchangeId: first.exchangeId,
          contextId: crypto.randomUUID(),
          conversationId: first.contextId,
          currentRound: 2,
        },
      },
    );
    expect(await bob.receive({ jws: split.jws, message: { text: 'and now?', items: [] } })).toMatchObject({
      status: 'refused',
      error: { detail: { reason: 'exchange_mismatch' } },
    });
    expect((await w.stores.bob.get('acme', first.exchangeId))?.currentRound).toBe(1);
    // The same round in its own conversation goes on.
    const same = await signedQuery(
      { text: 'and now?', items: [] },
      {
        signer: relay.signingKey,
        round: { exchangeId: first.exchangeId, contextId: first.contextId, currentRound: 2 },
      },
    );
    expect((await bob.receive({ jws: same.jws, message: { text: 'and now?', items: [] } })).status).toBe(
      'answered',
    );
  });

  it('a node refuses a signing key bound to another user; KeyRing refuses conflicting bindings and keeps them in its JWKS', async () => {
    expect(() => nodeFor('bob', { signingKey: w.keyPairs.alice.signingKey, userId: 'bob' })).toThrow();
    expect(() => nodeFor('bob', { signingKey: { ...w.keyPairs.bob.signingKey, userId: 'alice' } })).toThrow(
      /acts for user alice/,
    );
    expect(() => new KeyRing().add(guest.publicJwk, { userId: 'alice' })).toThrow(/bound to user guest/);
    const ring = new KeyRing().add({ ...guest.publicJwk, userId: undefined }, { userId: 'guest' });
    expect(ring.jwks().keys[0]).toMatchObject({ kid: 'acme/guest-assistant', userId: 'guest' });
    const again = new KeyRing();
    for (const k of ring.jwks().keys) again.add(k);
    expect((await again.publicKey('acme', 'guest-assistant'))?.userId).toBe('guest');
  });
});
