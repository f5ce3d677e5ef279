/** biome-ignore-all lint/suspicious/noExplicitAny: JSON bodies of a black-box HTTP suite are read without schemas */
/**
 * Interchange routes: list and read exchanges (the humans involved; enterprise_admin for the
 * tenant; org_admin for the users of their org; another tenant's are 404), approve and reject what an exchange waits on (only the human
 * asked; single use; audited), /metrics autoResponsesSent, and the routes in the OpenAPI document.
 */
import { type Exchange, newId } from '@agentgov/core';
import { makeExchange } from '@agentgov/core/testing';
import type { InterchangePlugin } from '@agentgov/interchange/gateway';
import { describe, expect, it } from 'vitest';
import type { Harness } from '../harness';

const pending = (over: Partial<Exchange>): Exchange =>
  makeExchange({
    tenantId: 'acme',
    initiatorUserId: 'u-alice',
    responderUserId: 'u-bob',
    exchangeType: 'meeting_scheduling',
    currentRound: 1,
    maxRounds: 2,
    startedAt: new Date().toISOString(),
    transcript: [
      {
        kind: 'message',
        round: 1,
        from: 'initiator',
        messageType: 'agent-generated',
        text: 'Tuesday?',
        items: [],
      },
      {
        kind: 'awaiting_human',
        round: 1,
        approvalId: 'approval-1',
        action: 'meeting_scheduling',
        reason: 'meeting_scheduling always needs a human',
        ceiling: 'internal',
        initiatorOrgUnit: 'eng',
        at: new Date().toISOString(),
        expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      },
    ],
    ...over,
  });

export function interchangeCases(h: Harness): void {
  describe('interchange', () => {
    const plugin = () => h.gov.plugins.find((p) => p.name === 'interchange') as InterchangePlugin;
    const ids = { mine: '', other: '', foreign: '', auto: '' };

    it('seeds exchanges through the plugin’s store', async () => {
      const store = plugin().store;
      const mine = pending({});
      const other = makeExchange({ tenantId: 'acme', initiatorUserId: 'ea-1', responderUserId: 'oa-eng' });
      const foreign = makeExchange({
        tenantId: 'globex',
        initiatorUserId: 'u-alice',
        responderUserId: 'u-bob',
      });
      const auto = makeExchange({
        tenantId: 'acme',
        initiatorUserId: 'u-bob',
        responderUserId: 'u-alice',
        outcome: 'resolved',
        transcript: [{ kind: 'reply', round: 1, automatic: true, text: 'done', items: [] }],
      });
      for (const x of [mine, other, foreign, auto]) await store.insert(x);
      Object.assign(ids, {
        mine: mine.exchangeId,
        other: other.exchangeId,
        foreign: foreign.exchangeId,
        auto: auto.exchangeId,
      });
    });

    it('GET /exchanges: the caller’s own; enterprise_admin the tenant’s; never another tenant’s', async () => {
      const alice = await h.call('/exchanges', { as: 'user' });
      expect(alice.status).toBe(200);
      expect(alice.body.exchanges.map((x: any) => x.exchangeId).sort()).toEqual([ids.mine, ids.auto].sort());
      expect(alice.body.total).toBe(2);
      const admin = await h.call('/exchanges?pageSize=1000', { as: 'enterpriseAdmin' });
      expect(admin.body.total).toBe(3);
      expect(admin.body.exchanges.every((x: any) => x.tenantId === 'acme')).toBe(true);
      const filtered = await h.call('/exchanges?outcome=resolved&userId=u-alice', { as: 'enterpriseAdmin' });
      expect(filtered.body.exchanges.map((x: any) => x.exchangeId)).toEqual([ids.auto]);
      // a non-admin cannot read someone else's list by naming them
      const named = await h.call('/exchanges?userId=ea-1', { as: 'user' });
      expect(named.body.exchanges.map((x: any) => x.exchangeId).sort()).toEqual([ids.mine, ids.auto].sort());
      const paged = await h.call('/exchanges?page=2&pageSize=1', { as: 'user' });
      expect(paged.body.exchanges).toHaveLength(1);
      expect(paged.body.total).toBe(2);
      const globex = await h.call('/exchanges', { as: 'otherTenantAdmin' });
      expect(globex.body.exchanges.map((x: any) => x.exchangeId)).toEqual([ids.foreign]);
      h.expectError(await h.call('/exchanges?outcome=lost', { as: 'user' }), 400, 'invalid_type');
      h.expectError(await h.call('/exchanges?pageSize=1001', { as: 'user' }), 400, 'invalid_type');
      h.expectError(await h.call('/exchanges'), 401);
    });

    it('GET /exchanges/{id}: the humans involved and enterprise_admin; others and other tenants 404', async () => {
      const read = await h.call(`/exchanges/${ids.mine}`, { as: 'userSales' });
      expect(read.status).toBe(200);
      expect(read.body.transcript).toHaveLength(2);
      expect((await h.call(`/exchanges/${ids.mine}`, { as: 'enterpriseAdmin' })).status).toBe(200);
      h.expectError(await h.call(`/exchanges/${ids.other}`, { as: 'user' }), 404, 'NOT_FOUND');
      h.expectError(await h.call(`/exchanges/${ids.foreign}`, { as: 'enterpriseAdmin' }), 404, 'NOT_FOUND');
      h.expectError(await h.call(`/exchanges/${ids.mine}`, { as: 'otherTenantAdmin' }), 404, 'NOT_FOUND');
      h.expectError(await h.call(`/exchanges/${newId()}`, { as: 'user' }), 404, 'NOT_FOUND');
    });

    it('GET /exchanges, /exchanges/{id}: an org_admin reads the exchanges of their org’s users, and cannot decide', async () => {
      // placed by the kernel from their tokens: u-alice in eng, u-bob in sales, ea-1 in hq
      for (const who of ['user', 'userSales', 'enterpriseAdmin', 'orgAdmin', 'orgAdminSales'] as const)
        expect((await h.call('/exchanges', { as: who })).status).toBe(200);
      const salesOnly = pending({ initiatorUserId: 'ea-1', responderUserId: 'u-bob' });
      await plugin().store.insert(salesOnly);
      const list = async (who: 'orgAdmin' | 'orgAdminSales' | 'teamLead', query = '') => {
        const r = await h.call(`/exchanges${query}`, { as: who });
        expect(r.status).toBe(200);
        expect(r.body.total).toBe(r.body.exchanges.length);
        return r.body.exchanges.map((x: any) => x.exchangeId).sort();
      };
      // eng: alice's exchanges and their own; not one between hq and sales
      expect(await list('orgAdmin')).toEqual([ids.mine, ids.auto, ids.other].sort());
      // sales: bob's exchanges; not one between hq and the eng admin
      expect(await list('orgAdminSales')).toEqual([ids.mine, ids.auto, salesOnly.exchangeId].sort());
      // userId narrows inside the scope, never widens it
      expect(await list('orgAdmin', '?userId=ea-1')).toEqual([ids.other]);
      expect(await list('orgAdminSales', '?userId=ea-1')).toEqual([salesOnly.exchangeId]);
      // a team_lead has no exchange scope beyond their own
      expect(await list('teamLead')).toEqual([]);
      expect((await h.call(`/exchanges/${salesOnly.exchangeId}`, { as: 'orgAdminSales' })).status).toBe(200);
      expect((await h.call(`/exchanges/${ids.mine}`, { as: 'orgAdmin' })).status).toBe(200);
      h.expectError(await h.call(`/exchanges/${salesOnly.exchangeId}`, { as: 'orgAdmin' }), 404, 'NOT_FOUND');
      h.expectError(await h.call(`/exchanges/${ids.other}`, { as: 'orgAdminSales' }), 404, 'NOT_FOUND');
      h.expectError(await h.call(`/exchanges/${ids.foreign}`, { as: 'orgAdmin' }), 404, 'NOT_FOUND');
      // reading is not deciding: only the human asked approves
      h.expectError(
        await h.call(`/exchanges/${salesOnly.exchangeId}/approve`, {
          as: 'orgAdminSales',
          method: 'POST',
          body: {},
        }),
        403,
        'forbidden',
      );
    });

    it('POST /exchanges/{id}/approve: only the human asked; bound to the pending request; single use; audited', async () => {
      h.expectError(
        await h.call(`/exchanges/${ids.mine}/approve`, { as: 'user', method: 'POST', body: {} }),
        403,
        'forbidden',
      );
      h.expectError(
        await h.call(`/exchanges/${ids.mine}/approve`, { as: 'enterpriseAdmin', method: 'POST', body: {} }),
        403,
        'forbidden',
      );
      h.expectError(
        await h.call(`/exchanges/${ids.mine}/approve`, { as: 'otherTenantAdmin', method: 'POST', body: {} }),
        404,
        'NOT_FOUND',
      );
      h.expectError(
        await h.call(`/exchanges/${ids.mine}/approve`, {
          as: 'userSales',
          method: 'POST',
          body: { approvalId: 'another' },
        }),
        404,
        'NOT_FOUND',
      );
      h.expectError(
        await h.call(`/exchanges/${ids.mine}/approve`, {
          as: 'userSales',
          method: 'POST',
          body: { approve: true },
        }),
        400,
        'invalid_type',
      );
      const ok = await h.call(`/exchanges/${ids.mine}/approve`, {
        as: 'userSales',
        method: 'POST',
        body: { approvalId: 'approval-1', note: 'Tuesday works' },
      });
      expect(ok.status).toBe(200);
      const decision = ok.body.transcript.find((t: any) => t.kind === 'human_decision');
      expect(decision).toMatchObject({
        decision: 'approved',
        by: 'u-bob',
        approvalId: 'approval-1',
        note: 'Tuesday works',
      });
      expect(Date.parse(decision.at)).toBeGreaterThan(Date.now() - 60_000);
      h.expectError(
        await h.call(`/exchanges/${ids.mine}/reject`, { as: 'userSales', method: 'POST', body: {} }),
        404,
        'NOT_FOUND',
      );
      const audit = await h.call('/audit?action_type=agent_exchange&page_size=1000', {
        as: 'enterpriseAdmin',
      });
      expect(
        audit.body.entries.some(
          (e: any) =>
            e.userId === 'u-bob' &&
            e.actionDetail.event === 'approved' &&
            e.actionDetail.exchangeId === ids.mine,
        ),
      ).toBe(true);
    });

    it('POST /exchanges/{id}/reject: the exchange is denied', async () => {
      const x = pending({});
      await plugin().store.insert(x);
      const r = await h.call(`/exchanges/${x.exchangeId}/reject`, {
        as: 'userSales',
        method: 'POST',
        body: { note: 'no' },
      });
      expect(r.status).toBe(200);
      expect(r.body.outcome).toBe('denied');
      expect(r.body.endedAt).not.toBeNull();
    });

    it('POST /exchanges/{id}/approve: a round the initiator cancelled (A2A CancelTask) can no longer be approved', async () => {
      const waiting = pending({});
      const at = new Date().toISOString();
      const cancelled = {
        ...waiting,
        outcome: 'denied' as const,
        endedAt: at,
        transcript: [
          ...waiting.transcript,
          { kind: 'cancelled', round: 1, by: 'acme/agent-alice', at },
          { kind: 'outcome', outcome: 'denied', reason: 'cancelled by acme/agent-alice', at },
        ],
      };
      await plugin().store.insert(cancelled);
      h.expectError(
        await h.call(`/exchanges/${cancelled.exchangeId}/approve`, {
          as: 'userSales',
          method: 'POST',
          body: { approvalId: 'approval-1' },
        }),
        404,
        'NOT_FOUND',
      );
      const read = await h.call(`/exchanges/${cancelled.exchangeId}`, { as: 'userSales' });
      expect(read.body.outcome).toBe('denied');
      expect(read.body.transcript.some((t: any) => t.kind === 'human_decision')).toBe(false);
    });

    it('GET /metrics: autoResponsesSent from the exchange store; the routes are in the OpenAPI document', async () => {
      const m = await h.call('/metrics', { as: 'enterpriseAdmin' });
      expect(m.status).toBe(200);
      expect(m.body.autoResponsesSent).toBe(1);
      const doc = await h.call('/openapi.json');
      expect(doc.status).toBe(200);
      expect(Object.keys(doc.body.paths)).toEqual(
        expect.arrayContaining([
          '/api/v1/exchanges',
          '/api/v1/exchanges/{id}',
          '/api/v1/exchanges/{id}/approve',
          '/api/v1/exchanges/{id}/reject',
        ]),
      );
    });
  });
}
