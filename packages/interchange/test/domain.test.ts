import { describe, expect, it } from 'vitest';
import { AI_DISCLOSURE_LABEL, EnvelopeClaimsSchema } from '../src/index';
import { AGENTS, answerWith, itemsAt, makeWorld } from './harness';

const payload = (jws: string) =>
  EnvelopeClaimsSchema.parse(JSON.parse(Buffer.from(jws.split('.')[1] as string, 'base64url').toString()));

describe('information query (spec steps in order)', () => {
  it('is answered automatically, filters above the ceiling, audits both sides with every actionDetail field', async () => {
    const w = await makeWorld({
      answer: { bob: answerWith(itemsAt('public', 'confidential', 'restricted')) },
    });
    const r = await w.nodes.alice.query({
      to: 'agent-bob',
      message: { text: 'status?', items: itemsAt('internal', 'confidential', 'restricted') },
    });
    expect(r.isOk()).toBe(true);
    const { exchange, status, reply } = r._unsafeUnwrap();
    expect(status).toBe('answered');
    expect(exchange.outcome).toBe('resolved');
    expect(exchange.maxRounds).toBe(3);
    // alice's ceiling is confidential (identity ∧ policy): restricted withheld on the way out
    const sent = exchange.transcript[0] as { items: { classification: string }[]; jws: string };
    expect(sent.items.map((i) => i.classification)).toEqual(['internal', 'confidential']);
    expect(exchange.dataWithheld).toContainEqual({
      reason: 'classification_exceeded',
      description: 'drive.f2-restricted is restricted, above confidential',
    });
    expect(reply?.items.map((i) => i.classification)).toEqual(['public', 'confidential']);
    const env = payload(sent.jws).envelope;
    expect(env).toMatchObject({
      protocolVersion: '1.0',
      messageType: 'agent-generated',
      replyPolicy: 'agent-ok',
      currentRound: 1,
      maxRounds: 3,
      classificationLevel: 'confidential',
      aiDisclosureLabel: AI_DISCLOSURE_LABEL,
    });
    for (const side of ['alice', 'bob'] as const) {
      const entries = w.audits[side].entries.filter((e) => e.actionType === 'agent_exchange');
      expect(entries.length).toBeGreaterThan(0);
      for (const e of entries) {
        expect(e.userId).toBe(AGENTS[side].userId);
        expect(Object.keys(e.actionDetail)).toEqual(
          expect.arrayContaining([
            'exchangeId',
            'exchangeType',
            'initiatorAgentId',
            'responderAgentId',
            'currentRound',
            'maxRounds',
            'classificationLevel',
            'escalated',
            'dataShared',
            'dataWithheld',
          ]),
        );
        expect(e.actionDetail.exchangeId).toBe(exchange.exchangeId);
      }
    }
  });
});
