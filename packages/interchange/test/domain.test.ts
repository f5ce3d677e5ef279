import { InMemoryExchangeStore, InMemoryOrgDirectory, type Role } from '@agentgov/core';
import { makeExchange } from '@agentgov/core/testing';
import { describe, expect, it } from 'vitest';
import {
  AI_DISCLOSURE_LABEL,
  EnvelopeClaimsSchema,
  exchangeVisibility,
  listExchanges,
  readExchange,
} from '../src/index';
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

describe('who reads stored exchanges (exchangeVisibility, listExchanges, readExchange)', () => {
  it('enterprise_admin the tenant; org_admin their org’s users with a directory, only their own without; users their own', async () => {
    const store = new InMemoryExchangeStore();
    const directory = new InMemoryOrgDirectory();
    await directory.place('acme', 'alice', { orgUnit: 'eng', team: 'platform' });
    await directory.place('acme', 'bob', { orgUnit: 'sales' });
    await directory.place('acme', 'olga', { orgUnit: 'eng' });
    const engSales = makeExchange({ tenantId: 'acme', initiatorUserId: 'alice', responderUserId: 'bob' });
    const salesOnly = makeExchange({ tenantId: 'acme', initiatorUserId: 'bob', responderUserId: 'carl' });
    const foreign = makeExchange({ tenantId: 'globex', initiatorUserId: 'alice', responderUserId: 'bob' });
    for (const x of [engSales, salesOnly, foreign]) await store.insert(x);
    const viewer = (userId: string, roles: Role[], orgUnit: string | null = null) => ({
      tenantId: 'acme',
      userId,
      roles,
      orgUnit,
    });
    const ids = async (v: ReturnType<typeof viewer>, dir?: InMemoryOrgDirectory) =>
      (await listExchanges(store, v, {}, { offset: 0, limit: 10 }, dir)).exchanges
        .map((x) => x.exchangeId)
        .sort();
    const olga = viewer('olga', ['org_admin'], 'eng');
    expect(await exchangeVisibility(olga, directory)).toEqual({
      userIds: expect.arrayContaining(['alice', 'olga']),
    });
    expect(await ids(olga, directory)).toEqual([engSales.exchangeId]);
    expect(await ids(olga)).toEqual([]);
    expect(await ids(viewer('root', ['enterprise_admin']))).toEqual(
      [engSales.exchangeId, salesOnly.exchangeId].sort(),
    );
    expect(await ids(viewer('bob', ['user'], 'sales'), directory)).toEqual(
      [engSales.exchangeId, salesOnly.exchangeId].sort(),
    );
    expect((await readExchange(store, olga, engSales.exchangeId, directory)).exchangeId).toBe(
      engSales.exchangeId,
    );
    await expect(readExchange(store, olga, salesOnly.exchangeId, directory)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(readExchange(store, olga, foreign.exchangeId, directory)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});
