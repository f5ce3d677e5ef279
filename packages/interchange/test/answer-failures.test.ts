/**
 * The agent's automatic answer fails (throws, returns no valid message, never comes): the round
 * goes to a human, audited, as when no answer is configured — never a thrown delivery (an A2A 500
 * with nothing audited). The peer hears only that it failed; `onAnswerError` gets the cause.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startA2AServer } from '../src/a2a';
import type { AnswerError, IncomingQuery, NodeOptions } from '../src/index';
import { a2aNode } from './a2a-harness';
import { answerWith, itemsAt, makeWorld } from './harness';

const SECRET = 'db password hunter2 in the stack';
const FAILING: Record<AnswerError['failure'], NodeOptions['answer']> = {
  error: async () => {
    throw new Error(SECRET);
  },
  invalid: async () => ({ text: SECRET, items: [{ source: 'x' }] }) as never,
  timeout: () => new Promise(() => {}),
};
const REASONS = {
  error: 'the automatic answer failed',
  invalid: 'the automatic answer is not a valid message',
  timeout: 'the automatic answer did not come in time',
};

describe('an automatic answer that fails (in process)', () => {
  for (const failure of ['error', 'invalid', 'timeout'] as const) {
    it(`${failure}: the round waits for bob's human, audited; alice hears no cause; onAnswerError does`, async () => {
      const told: AnswerError[] = [];
      const w = await makeWorld({
        answer: { bob: FAILING[failure] },
        extra: { answerTimeoutMs: 30, onAnswerError: (e) => told.push(e) },
      });
      const r = await w.nodes.alice.query({ to: 'agent-bob', message: { text: 'status?' } });
      const got = r._unsafeUnwrap();
      expect(got.status).toBe('pending');
      const pending = w.audits.bob.entries.find(
        (e) => e.actionType === 'agent_exchange' && e.actionDetail.event === 'pending_human',
      );
      expect(pending?.policyReason).toBe(`${REASONS[failure]}: a human answers`);
      expect(pending?.outcome).toBe('pending_approval');
      // Only bob's side knows the cause, through onAnswerError.
      expect(told).toHaveLength(1);
      expect(told[0]).toMatchObject({ failure, exchangeId: got.exchange.exchangeId, round: 1 });
      if (failure === 'error') expect(told[0]?.cause).toMatchObject({ message: SECRET });
      for (const side of ['alice', 'bob'] as const) {
        expect(JSON.stringify(w.audits[side].entries)).not.toContain('hunter2');
        const stored = await w.stores[side].get('acme', got.exchange.exchangeId);
        expect(JSON.stringify(stored)).not.toContain('hunter2');
      }
      // bob's human can still answer: the round is not lost.
      const decided = await w.nodes.bob.resolveApproval({
        exchangeId: got.exchange.exchangeId,
        by: 'bob',
        decision: 'rejected',
        note: 'not now',
      });
      expect(decided._unsafeUnwrap().status).toBe('declined');
    });
  }

  it('after a human approval, a failed answer sends nothing and uses nothing up: the next ask retries', async () => {
    let fail = true;
    const answer = async (q: IncomingQuery) => {
      if (fail) throw new Error(SECRET);
      return answerWith(itemsAt('public'))(q);
    };
    const w = await makeWorld({
      answer: { bob: answer },
      identity: { bob: '{"canAutoRespond":false,"maxClassificationShared":"confidential"}' },
      extra: { onAnswerError: () => {} },
    });
    const r = (await w.nodes.alice.query({ to: 'agent-bob', message: { text: 'status?' } }))._unsafeUnwrap();
    expect(r.status).toBe('pending');
    const decided = (
      await w.nodes.bob.resolveApproval({
        exchangeId: r.exchange.exchangeId,
        by: 'bob',
        decision: 'approved',
      })
    )._unsafeUnwrap();
    expect(decided).toMatchObject({
      status: 'pending',
      reason: 'approved; the automatic answer failed, try again',
    });
    fail = false;
    const got = (await w.nodes.alice.collect(r.exchange.exchangeId))._unsafeUnwrap();
    expect(got.status).toBe('answered');
    expect(got.reply?.text).toBe('answer to: status?');
    expect(got.reply?.items.map((i) => i.classification)).toEqual(['public']);
  });

  it('an onAnswerError that throws changes nothing', async () => {
    const w = await makeWorld({
      answer: { bob: FAILING.error },
      extra: {
        onAnswerError: () => {
          throw new Error('observer down');
        },
      },
    });
    const r = await w.nodes.alice.query({ to: 'agent-bob', message: { text: 'status?' } });
    expect(r._unsafeUnwrap().status).toBe('pending');
  });
});

describe('an automatic answer that fails (over A2A)', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of closers.splice(0)) await c();
  });

  for (const failure of ['error', 'invalid'] as const) {
    it(`${failure}: the governed server answers the round as waiting for a human, never a 500`, async () => {
      const w = await makeWorld({ stores: 'separate' });
      const urls = new Map<string, string>();
      const told: AnswerError[] = [];
      const bob = a2aNode(w, 'bob', {
        resolve: (id) => urls.get(id),
        answer: FAILING[failure],
        onAnswerError: (e) => told.push(e),
      });
      const alice = a2aNode(w, 'alice', { resolve: (id) => urls.get(id) });
      const server = await startA2AServer({ node: bob, signingKey: w.keyPairs.bob.signingKey, keys: w.keys });
      closers.push(() => server.close());
      urls.set('agent-bob', server.url);
      const r = await alice.query({ to: 'agent-bob', message: { text: 'status?' } });
      const got = r._unsafeUnwrap();
      expect(got.status).toBe('pending');
      expect(got.exchange.outcome).toBe('in_progress');
      expect(told.map((t) => t.failure)).toEqual([failure]);
      expect(JSON.stringify(got)).not.toContain('hunter2');
      const events = w.audits.bob.entries.map((e) => e.actionDetail.event);
      expect(events).toContain('pending_human');
    });
  }
});
