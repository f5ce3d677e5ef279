/** One table per rule of "Agent-to-agent exchange behavior", on real policies and the built-in engine. */
import { type DecisionEngine, err, ok, PolicyEngineUnreachableError } from '@agentgov/core';
import { describe, expect, it } from 'vitest';
import { type InterchangeNode, parseAgentIdentityConfig } from '../src/index';
import { answerWith, ask, itemsAt, makeWorld, type WorldOptions } from './harness';

/** The error code of a human decision the node refuses (throws when it is accepted). */
async function refusedCode(
  node: InterchangeNode,
  exchangeId: string,
  by: string,
  decision: 'approved' | 'rejected',
): Promise<string> {
  return (await node.resolveApproval({ exchangeId, by, decision }))._unsafeUnwrapErr().code;
}

const allowEverything = (): DecisionEngine => ({
  name: 'permissive',
  decide: async () => ok({ allow: true, deny: false, reason: 'allow all', constraints: { max_rounds: 50 } }),
  health: async () => true,
});

describe('rule: who may talk to whom', () => {
  const cases: {
    name: string;
    world: WorldOptions;
    from: 'alice' | 'carol';
    to: string;
    items?: ReturnType<typeof itemsAt>;
    code: string;
  }[] = [
    {
      name: 'no policy: default deny',
      world: { policy: null },
      from: 'alice',
      to: 'agent-bob',
      code: 'policy_denied',
    },
    {
      name: 'policy disabled',
      world: { policy: 'enabled: false\n' },
      from: 'alice',
      to: 'agent-bob',
      code: 'policy_denied',
    },
    {
      name: 'cross-tenant: blocked by policy',
      world: {},
      from: 'alice',
      to: 'agent-dave',
      code: 'CROSS_ENTERPRISE_BLOCKED',
    },
    {
      name: 'cross-tenant: blocked even when the engine allows everything',
      world: { engine: allowEverything },
      from: 'alice',
      to: 'agent-dave',
      code: 'CROSS_ENTERPRISE_BLOCKED',
    },
    {
      name: 'responder does not accept queries',
      world: { identity: { bob: '{"canReceiveQueries":false}' } },
      from: 'alice',
      to: 'agent-bob',
      code: 'policy_denied',
    },
    {
      name: 'responder does not take part in the type',
      world: { identity: { bob: '{"supportedExchangeTypes":["meeting_scheduling"]}' } },
      from: 'alice',
      to: 'agent-bob',
      code: 'policy_denied',
    },
    {
      name: 'confidential across org units is denied',
      world: {},
      from: 'alice',
      to: 'agent-carol',
      items: itemsAt('confidential'),
      code: 'policy_denied',
    },
    { name: 'unknown agent', world: {}, from: 'alice', to: 'agent-nobody', code: 'NOT_FOUND' },
  ];
  for (const c of cases) {
    it(`${c.name} → ${c.code}, nothing delivered`, async () => {
      const w = await makeWorld(c.world);
      const r = await w.nodes[c.from].query({
        to: c.to,
        message: { text: 'q', items: c.items ?? itemsAt('internal') },
      });
      expect(r.isErr() && r.error.code).toBe(c.code);
      for (const other of ['bob', 'carol', 'dave'] as const) {
        if (other === c.from) continue;
        expect(w.audits[other].entries.filter((e) => e.actionDetail.event === 'received')).toEqual([]);
      }
      if (c.code !== 'NOT_FOUND') {
        const mine = w.audits[c.from].entries.filter((e) => e.actionType === 'agent_exchange');
        expect(mine).toHaveLength(1);
        expect(mine[0]?.outcome).toBe('denied');
        expect(mine[0]?.actionDetail.code).toBe(c.code);
      }
    });
  }
  it('the cross-org example: internal is allowed between org units, confidential is not', async () => {
    const w = await makeWorld();
    expect(
      (
        await w.nodes.alice.query({ to: 'agent-carol', message: { text: 'q', items: itemsAt('internal') } })
      ).isOk(),
    ).toBe(true);
    const denied = await w.nodes.alice.query({
      to: 'agent-carol',
      message: { text: 'q', items: itemsAt('confidential') },
    });
    expect(denied._unsafeUnwrapErr().message).toContain('confidential data cannot be shared cross-org');
  });

  it('the cross-org rule holds for the answer too: confidential data in carol’s reply never reaches alice', async () => {
    const w = await makeWorld({
      answer: { carol: answerWith(itemsAt('public', 'internal', 'confidential')) },
    });
    const r = (
      await w.nodes.alice.query({
        to: 'agent-carol',
        message: { text: 'what is the plan?', items: itemsAt('internal') },
      })
    )._unsafeUnwrap();
    expect(r.exchange.outcome).toBe('resolved');
    expect(r.reply?.items.map((i) => i.classification)).toEqual(['public', 'internal']);
    // Withheld by carol's side (it never left), recorded on both.
    for (const side of ['alice', 'carol'] as const) {
      const x = (await w.stores[side].get('acme', r.exchange.exchangeId))!;
      expect(x.classificationLevel).toBe('internal');
      expect(x.dataWithheld.map((d) => d.description)).toContainEqual(
        expect.stringMatching(/confidential, above internal/),
      );
    }
    // The initiator holds the answer to its own decided ceiling too: a responder whose engine does
    // not lower it (an OPA policy of its own, an older node) still cannot hand alice confidential data.
    const lax = await makeWorld({
      answer: { carol: answerWith(itemsAt('public', 'internal', 'confidential')) },
      engine: (builtin) => ({
        ...builtin,
        name: builtin.name,
        health: () => builtin.health(),
        decide: async (request, o) => {
          const d = await builtin.decide(request, o);
          return request.userId === 'carol' && d.isOk()
            ? ok({
                ...d.value,
                constraints: { ...d.value.constraints, max_classification_shared: 'confidential' },
              })
            : d;
        },
      }),
    });
    const l = (await lax.nodes.alice.query({ to: 'agent-carol', message: { text: 'q' } }))._unsafeUnwrap();
    expect(l.reply?.items.map((i) => i.classification)).toEqual(['public', 'internal']);
    expect((await lax.stores.alice.get('acme', l.exchange.exchangeId))?.classificationLevel).toBe('internal');
    // Within one org unit (bob) the same answer keeps it.
    const same = await makeWorld({ answer: { bob: answerWith(itemsAt('confidential')) } });
    const b = (await same.nodes.alice.query({ to: 'agent-bob', message: { text: 'q' } }))._unsafeUnwrap();
    expect(b.reply?.items.map((i) => i.classification)).toEqual(['confidential']);
  });
});

describe('rule: the decision engine fails closed', () => {
  const down: Record<string, (b: DecisionEngine) => DecisionEngine> = {
    'returns unreachable': () => ({
      name: 'opa',
      decide: async () => err(new PolicyEngineUnreachableError()),
      health: async () => false,
    }),
    throws: () => ({
      name: 'opa',
      decide: async () => {
        throw new Error('ECONNREFUSED');
      },
      health: async () => false,
    }),
  };
  for (const [name, engine] of Object.entries(down)) {
    it(`engine ${name} → POLICY_ENGINE_UNREACHABLE, nothing sent or stored`, async () => {
      const w = await makeWorld({ engine });
      const r = await w.nodes.alice.query({ to: 'agent-bob', message: { text: 'q' } });
      expect(r._unsafeUnwrapErr().code).toBe('POLICY_ENGINE_UNREACHABLE');
      expect((await w.stores.alice.list('acme', {}, { offset: 0, limit: 10 })).total).toBe(0);
      expect(w.audits.bob.entries).toEqual([]);
      expect(w.audits.alice.entries[0]).toMatchObject({ outcome: 'error', actionType: 'agent_exchange' });
    });
  }
});

describe('rule: round limits (per type from policy, one number, default 3), escalation, never raised', () => {
  const cases: {
    name: string;
    world: WorldOptions;
    type: 'information_query' | 'meeting_scheduling' | 'commitment_request';
    max: number;
  }[] = [
    { name: 'policy map: information_query', world: {}, type: 'information_query', max: 3 },
    { name: 'policy map: meeting_scheduling', world: {}, type: 'meeting_scheduling', max: 2 },
    { name: 'policy map: commitment_request', world: {}, type: 'commitment_request', max: 1 },
    {
      name: 'no max_rounds in policy: default 3',
      world: { policy: 'enabled: true\nmax_classification_shared: confidential\n' },
      type: 'information_query',
      max: 3,
    },
    {
      name: 'one number for all types (deployment)',
      world: { extra: { roundLimits: 2 } },
      type: 'information_query',
      max: 2,
    },
    {
      name: 'per-type deployment limits',
      world: { extra: { roundLimits: { information_query: 1 } } },
      type: 'information_query',
      max: 1,
    },
    {
      name: 'identity maxRoundsAccepted lowers it',
      world: { identity: { bob: '{"maxRoundsAccepted":2}' } },
      type: 'information_query',
      max: 2,
    },
  ];
  for (const c of cases) {
    it(`${c.name} → maxRounds ${c.max}`, async () => {
      const w = await makeWorld(c.world);
      const r = await w.nodes.alice.query({
        to: 'agent-bob',
        exchangeType: c.type,
        message: { text: 'q' },
        keepOpen: true,
      });
      expect(r._unsafeUnwrap().exchange.maxRounds).toBe(c.max);
    });
  }
  it('rounds up to the limit are delivered; the limit escalates; one more raises EXCHANGE_ROUND_LIMIT', async () => {
    const w = await makeWorld();
    const first = (
      await w.nodes.alice.query({ to: 'agent-bob', message: { text: 'r1' }, keepOpen: true })
    )._unsafeUnwrap();
    const id = first.exchange.exchangeId;
    expect(
      (await w.nodes.alice.followUp(id, { message: { text: 'r2' }, keepOpen: true }))._unsafeUnwrap().exchange
        .outcome,
    ).toBe('in_progress');
    const third = (
      await w.nodes.alice.followUp(id, { message: { text: 'r3' }, keepOpen: true })
    )._unsafeUnwrap();
    expect(third.exchange).toMatchObject({
      currentRound: 3,
      outcome: 'escalated',
      escalationReason: 'round limit reached',
    });
    const fourth = await w.nodes.alice.followUp(id, { message: { text: 'r4' }, keepOpen: true });
    expect(fourth._unsafeUnwrapErr().code).toBe('EXCHANGE_ROUND_LIMIT');
    const stored = await w.stores.alice.get('acme', id);
    expect(stored?.currentRound).toBe(3);
    expect(stored?.maxRounds).toBe(3);
    expect(w.audits.alice.entries.some((e) => e.actionDetail.escalated === true)).toBe(true);
  });
  it('a policy raised mid-exchange does not raise the limit', async () => {
    let limit = 1;
    const w = await makeWorld({
      engine: (b) => ({
        name: 'x',
        health: async () => true,
        decide: async (req, o) =>
          (await b.decide(req, o)).map((d) => ({
            ...d,
            constraints: { ...d.constraints, max_rounds: limit },
          })),
      }),
    });
    const first = (
      await w.nodes.alice.query({ to: 'agent-bob', message: { text: 'r1' }, keepOpen: true })
    )._unsafeUnwrap();
    expect(first.exchange.maxRounds).toBe(1);
    limit = 10;
    expect(
      (
        await w.nodes.alice.followUp(first.exchange.exchangeId, { message: { text: 'r2' } })
      )._unsafeUnwrapErr().code,
    ).toBe('EXCHANGE_ROUND_LIMIT');
  });
  it('two concurrent follow-ups: only one passes the round', async () => {
    const w = await makeWorld();
    const first = (
      await w.nodes.alice.query({ to: 'agent-bob', message: { text: 'r1' }, keepOpen: true })
    )._unsafeUnwrap();
    const [a, b] = await Promise.all([
      w.nodes.alice.followUp(first.exchange.exchangeId, { message: { text: 'a' }, keepOpen: true }),
      w.nodes.alice.followUp(first.exchange.exchangeId, { message: { text: 'b' }, keepOpen: true }),
    ]);
    expect([a.isOk(), b.isOk()].filter(Boolean)).toHaveLength(1);
    expect((await w.stores.alice.get('acme', first.exchange.exchangeId))?.currentRound).toBe(2);
  });
});

describe('rule: commitments and meetings always need a human', () => {
  for (const type of ['commitment_request', 'meeting_scheduling'] as const) {
    it(`${type} waits for bob's human even with canMakeCommitments true; approval records who and when`, async () => {
      const w = await makeWorld({
        identity: { bob: '{"canMakeCommitments":true,"maxClassificationShared":"confidential"}' },
      });
      const r = (
        await w.nodes.alice.query({
          to: 'agent-bob',
          exchangeType: type,
          message: { text: 'Tuesday 10:00?' },
        })
      )._unsafeUnwrap();
      expect(r.status).toBe('pending');
      expect((await w.nodes.alice.collect(r.exchange.exchangeId))._unsafeUnwrap().status).toBe('pending');
      w.clock.advance(60_000);
      const decided = (
        await w.nodes.bob.resolveApproval({
          exchangeId: r.exchange.exchangeId,
          by: 'bob',
          decision: 'approved',
          note: 'ok, Tuesday',
        })
      )._unsafeUnwrap();
      expect(decided.status).toBe('answered');
      const got = (await w.nodes.alice.collect(r.exchange.exchangeId))._unsafeUnwrap();
      expect(got.status).toBe('answered');
      expect(got.reply?.commitment).toEqual({ action: type, detail: 'ok, Tuesday' });
      expect(got.exchange.outcome).toBe('resolved');
      const decision = got.exchange.transcript.find((t) => t.kind === 'human_decision');
      expect(decision).toMatchObject({ decision: 'approved', by: 'bob', at: '2026-01-05T09:01:00.000Z' });
      // single use: a second decision finds nothing pending
      expect(await refusedCode(w.nodes.bob, r.exchange.exchangeId, 'bob', 'rejected')).toBe('NOT_FOUND');
    });
  }
  it('decide() is the deprecated alias of resolveApproval() (one release): same result, same record', async () => {
    const w = await makeWorld();
    const r = await ask(w.nodes.alice, 'agent-bob', 'meeting_scheduling', 'meet?');
    const decided = (
      await w.nodes.bob.decide({ exchangeId: r.exchange.exchangeId, by: 'bob', decision: 'rejected' })
    )._unsafeUnwrap();
    expect(decided.status).toBe('declined');
    const x = await w.stores.bob.get('acme', r.exchange.exchangeId);
    expect(x?.transcript.filter((t) => t.kind === 'human_decision')).toMatchObject([
      { decision: 'rejected', by: 'bob' },
    ]);
  });
  it('approve and reject at the same time: exactly one decision is recorded', async () => {
    const w = await makeWorld();
    const r = await ask(w.nodes.alice, 'agent-bob', 'meeting_scheduling', 'meet?');
    const both = await Promise.all([
      w.nodes.bob.resolveApproval({ exchangeId: r.exchange.exchangeId, by: 'bob', decision: 'approved' }),
      w.nodes.bob.resolveApproval({ exchangeId: r.exchange.exchangeId, by: 'bob', decision: 'rejected' }),
    ]);
    expect(both.filter((b) => b.isOk())).toHaveLength(1);
    const x = await w.stores.bob.get('acme', r.exchange.exchangeId);
    expect(x?.transcript.filter((t) => t.kind === 'human_decision')).toHaveLength(1);
  });
  it('a rejection denies the exchange and tells the initiator', async () => {
    const w = await makeWorld();
    const r = await ask(w.nodes.alice, 'agent-bob', 'commitment_request', 'take ticket X?');
    (
      await w.nodes.bob.resolveApproval({
        exchangeId: r.exchange.exchangeId,
        by: 'bob',
        decision: 'rejected',
        note: 'busy',
      })
    )._unsafeUnwrap();
    const got = (await w.nodes.alice.collect(r.exchange.exchangeId))._unsafeUnwrap();
    expect(got.status).toBe('declined');
    expect(got.exchange.outcome).toBe('denied');
  });
  it('only the asked human may decide; an expired approval window expires the exchange', async () => {
    const w = await makeWorld();
    const r = await ask(w.nodes.alice, 'agent-bob', 'meeting_scheduling', 'meet?');
    expect(await refusedCode(w.nodes.bob, r.exchange.exchangeId, 'alice', 'approved')).toBe('forbidden');
    w.clock.advance(3_600_001);
    expect(await refusedCode(w.nodes.bob, r.exchange.exchangeId, 'bob', 'approved')).toBe('policy_denied');
    expect((await w.stores.bob.get('acme', r.exchange.exchangeId))?.outcome).toBe('expired');
  });
  it('an agent-generated message carrying a commitment raises COMMITMENT_REQUIRES_HUMAN, nothing sent', async () => {
    const w = await makeWorld();
    const r = await w.nodes.alice.query({
      to: 'agent-bob',
      exchangeType: 'commitment_request',
      message: { text: 'I will do it', commitment: { action: 'take_ticket' } },
    });
    expect(r._unsafeUnwrapErr().code).toBe('COMMITMENT_REQUIRES_HUMAN');
    expect(w.audits.bob.entries).toEqual([]);
  });
  it('a commitment the sender says a human made reaches only a human: never answered automatically', async () => {
    const w = await makeWorld({ answer: { bob: answerWith([]) } });
    const r = (
      await w.nodes.alice.query({
        to: 'agent-bob',
        messageType: 'human',
        message: { text: 'I commit to ship it', commitment: { action: 'ship' } },
      })
    )._unsafeUnwrap();
    // An information query bob's agent would answer at once, but for the commitment it carries.
    expect(r.status).toBe('pending');
    const x = await w.stores.bob.get('acme', r.exchange.exchangeId);
    expect(x?.transcript.some((t) => t.kind === 'message' && t.from === 'responder')).toBe(false);
    const plain = (
      await w.nodes.alice.query({ to: 'agent-bob', messageType: 'human', message: { text: 'hi' } })
    )._unsafeUnwrap();
    expect(plain.status).toBe('answered');
  });
  it("an agent answer that tries to commit is not sent: the round waits for bob's human", async () => {
    const w = await makeWorld({
      answer: { bob: async () => ({ text: 'sure, I commit', commitment: { action: 'deliver' } }) },
    });
    const r = (await w.nodes.alice.query({ to: 'agent-bob', message: { text: 'can you?' } }))._unsafeUnwrap();
    expect(r.status).toBe('pending');
    expect(w.audits.bob.entries.some((e) => e.actionDetail.code === 'COMMITMENT_REQUIRES_HUMAN')).toBe(true);
  });
});

describe('rule: automatic replies depend on identity and the human availability port', () => {
  const cases: {
    name: string;
    identity?: string;
    availability: 'online' | 'away' | 'offline';
    status: string;
  }[] = [
    { name: 'online, may auto-respond', availability: 'online', status: 'answered' },
    { name: 'away, may auto-respond', availability: 'away', status: 'answered' },
    { name: 'offline', availability: 'offline', status: 'pending' },
    {
      name: 'canAutoRespond false',
      identity: '{"canAutoRespond":false}',
      availability: 'online',
      status: 'pending',
    },
  ];
  for (const c of cases) {
    it(`${c.name} → ${c.status}`, async () => {
      const w = await makeWorld(c.identity ? { identity: { bob: c.identity } } : {});
      w.availability.bob = c.availability;
      const r = (await w.nodes.alice.query({ to: 'agent-bob', message: { text: 'q' } }))._unsafeUnwrap();
      expect(r.status).toBe(c.status);
      const autos = await w.stores.bob.countTranscriptEntries('acme', { kind: 'reply', automatic: true });
      expect(autos).toBe(c.status === 'answered' ? 1 : 0);
    });
  }
});

describe('lifecycle: TTL expiry with the injected clock', () => {
  it('an exchange in progress past its TTL expires (sweep and on access)', async () => {
    const w = await makeWorld({ extra: { ttlMs: 60_000 } });
    const r = (
      await w.nodes.alice.query({ to: 'agent-bob', message: { text: 'q' }, keepOpen: true })
    )._unsafeUnwrap();
    w.clock.advance(59_000);
    expect((await w.nodes.alice.expireStale())._unsafeUnwrap()).toEqual([]);
    w.clock.advance(1_000);
    const expired = (await w.nodes.alice.expireStale())._unsafeUnwrap();
    expect(expired.map((x) => x.exchangeId)).toEqual([r.exchange.exchangeId]);
    expect(expired[0]).toMatchObject({ outcome: 'expired', endedAt: '2026-01-05T09:01:00.000Z' });
    expect(
      (await w.nodes.alice.followUp(r.exchange.exchangeId, { message: { text: 'late' } }))._unsafeUnwrapErr()
        .code,
    ).toBe('policy_denied');
  });
});

describe('identity configuration', () => {
  it('defaults fill missing fields; canMakeCommitments true is accepted but never grants', () => {
    expect(parseAgentIdentityConfig(undefined)).toEqual({
      canReceiveQueries: true,
      canAutoRespond: true,
      canMakeCommitments: false,
      maxClassificationShared: 'internal',
      supportedExchangeTypes: ['information_query', 'commitment_request', 'meeting_scheduling'],
      maxRoundsAccepted: 3,
    });
    expect(
      parseAgentIdentityConfig([
        { type: 'interchange', config: { defaultAgentIdentity: '{"canAutoRespond":false}' } },
      ]).canAutoRespond,
    ).toBe(false);
  });
  const bad: [string, unknown][] = [
    ['malformed JSON', '{"canAutoRespond":'],
    ['not an object', '[1,2]'],
    ['wrong type', '{"maxRoundsAccepted":"three"}'],
    ['unknown level', '{"maxClassificationShared":"secret"}'],
    ['unknown key', '{"canTeleport":true}'],
    ['not a string', { canAutoRespond: true }],
  ];
  for (const [name, value] of bad) {
    it(`${name} → a configuration error naming the integration`, () => {
      expect(() =>
        parseAgentIdentityConfig([{ type: 'interchange', config: { defaultAgentIdentity: value } }]),
      ).toThrow(/integration "interchange", key "defaultAgentIdentity"/);
    });
  }
});
