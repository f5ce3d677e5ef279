/** biome-ignore-all lint/suspicious/noExplicitAny: JSON bodies of a black-box HTTP suite are read without schemas */
/** Policies: create, hierarchy violations, RBAC by scope, list/get/update/deprecate. */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNTS, type Harness, policyBody, type Who } from '../harness';

export function policyCases(h: Harness): void {
  describe('policies', () => {
    let enterpriseId: string;
    let teamId: string;
    beforeAll(async () => {
      // learn the org tree from the claims of every account
      for (const who of Object.keys(ACCOUNTS) as Who[]) await h.call('/auth/userinfo', { as: who });
    });
    it('enterprise_admin creates an enterprise policy → 201 active, and it is audited', async () => {
      const r = await h.call('/policies', { as: 'enterpriseAdmin', method: 'POST', body: policyBody() });
      expect(r.status, r.text).toBe(201);
      expect(r.body).toMatchObject({
        scope: 'enterprise',
        scopeId: 'acme',
        status: 'active',
        createdBy: 'ea-1',
      });
      expect(r.body.id).toMatch(/^[0-9a-f-]{36}$/);
      enterpriseId = r.body.id;
      const audit = await h.call('/audit?action_type=policy_change', { as: 'enterpriseAdmin' });
      expect(audit.body.entries.some((e: any) => e.actionDetail.policyId === enterpriseId)).toBe(true);
    });
    it('a lower scope cannot expand its parent: 400 POLICY_HIERARCHY_VIOLATION with detail', async () => {
      const r = await h.call('/policies', {
        as: 'orgAdmin',
        method: 'POST',
        body: policyBody({
          scope: 'org',
          scopeId: 'eng',
          content: 'max_classification_shared: restricted\n',
        }),
      });
      h.expectError(r, 400, 'POLICY_HIERARCHY_VIOLATION');
      expect(Array.isArray(r.body.detail)).toBe(true);
      expect(r.body.detail[0]).toMatchObject({
        key: 'max_classification_shared',
        scope: 'org',
        parentScope: 'enterprise',
      });
    });
    it('RBAC by scope: team_lead writes in their team, not elsewhere; users cannot write', async () => {
      const ok = await h.call('/policies', {
        as: 'teamLead',
        method: 'POST',
        body: policyBody({
          scope: 'team',
          scopeId: 'platform',
          content: 'max_classification_shared: internal\n',
        }),
      });
      expect(ok.status, ok.text).toBe(201);
      teamId = ok.body.id;
      h.expectError(
        await h.call('/policies', {
          as: 'teamLead',
          method: 'POST',
          body: policyBody({ scope: 'org', scopeId: 'eng' }),
        }),
        403,
        'forbidden',
      );
      h.expectError(
        await h.call('/policies', {
          as: 'user',
          method: 'POST',
          body: policyBody({ scope: 'user', scopeId: 'u-alice' }),
        }),
        403,
        'forbidden',
      );
      h.expectError(
        await h.call('/policies', {
          as: 'orgAdminSales',
          method: 'POST',
          body: policyBody({ scope: 'team', scopeId: 'platform' }),
        }),
        403,
        'forbidden',
      );
    });
    it('GET /policies is scoped by role; filters validate', async () => {
      const all = await h.call('/policies', { as: 'enterpriseAdmin' });
      expect(all.status).toBe(200);
      expect(all.body.map((p: any) => p.id)).toEqual(expect.arrayContaining([enterpriseId, teamId]));
      const sales = await h.call('/policies', { as: 'userSales' });
      expect(sales.body.map((p: any) => p.id)).toContain(enterpriseId);
      expect(sales.body.map((p: any) => p.id)).not.toContain(teamId);
      const team = await h.call('/policies?scope=team', { as: 'user' });
      expect(team.body.map((p: any) => p.id)).toEqual([teamId]);
      h.expectError(await h.call('/policies?scope=planet', { as: 'user' }), 400, 'invalid_type');
      expect((await h.call('/policies', { as: 'otherTenantAdmin' })).body).toEqual([]);
    });
    it('GET /policies/{id}: 200, invisible or unknown or another tenant → 404 NOT_FOUND', async () => {
      expect((await h.call(`/policies/${enterpriseId}`, { as: 'user' })).body.id).toBe(enterpriseId);
      h.expectError(await h.call(`/policies/${teamId}`, { as: 'userSales' }), 404, 'NOT_FOUND');
      h.expectError(await h.call(`/policies/${randomUUID()}`, { as: 'enterpriseAdmin' }), 404, 'NOT_FOUND');
      h.expectError(await h.call(`/policies/${enterpriseId}`, { as: 'otherTenantAdmin' }), 404, 'NOT_FOUND');
    });
    it('PUT /policies/{id} updates content and re-validates the hierarchy', async () => {
      const r = await h.call(`/policies/${teamId}`, {
        as: 'teamLead',
        method: 'PUT',
        body: { content: 'max_classification_shared: public\n', changeReason: 'tighten' },
      });
      expect(r.status, r.text).toBe(200);
      expect(r.body.content).toBe('max_classification_shared: public\n');
      h.expectError(
        await h.call(`/policies/${teamId}`, {
          as: 'teamLead',
          method: 'PUT',
          body: { content: 'max_classification_shared: restricted\n', changeReason: 'widen' },
        }),
        400,
        'POLICY_HIERARCHY_VIOLATION',
      );
      h.expectError(
        await h.call(`/policies/${teamId}`, { as: 'teamLead', method: 'PUT', body: { content: 'x: 1' } }),
        400,
        'missing_type',
      );
      h.expectError(
        await h.call(`/policies/${enterpriseId}`, {
          as: 'user',
          method: 'PUT',
          body: { content: 'a', changeReason: 'b' },
        }),
        403,
        'forbidden',
      );
    });
    it('DELETE /policies/{id} → 200 deprecated, record kept', async () => {
      const r = await h.call(`/policies/${teamId}`, { as: 'orgAdmin', method: 'DELETE' });
      expect(r.status, r.text).toBe(200);
      expect(r.body).toMatchObject({ id: teamId, status: 'deprecated' });
      expect((await h.call(`/policies/${teamId}`, { as: 'enterpriseAdmin' })).body.status).toBe('deprecated');
      h.expectError(
        await h.call(`/policies/${enterpriseId}`, { as: 'orgAdmin', method: 'DELETE' }),
        403,
        'forbidden',
      );
    });
    it('POST /decisions/explain: why for a user in scope (the trace and the policy that decided); others → 404', async () => {
      // A service of its own: the policies written here must not change what later cases decide.
      const { server: s, gov: g } = await h.setup();
      h.extra.push(s);
      const call = (path: string, init: Parameters<Harness['call']>[1]) =>
        h.call(path, { ...init, base: s.url });
      try {
        for (const who of Object.keys(ACCOUNTS) as Who[]) await call('/auth/userinfo', { as: who });
        const enterprise = await call('/policies', {
          as: 'enterpriseAdmin',
          method: 'POST',
          body: policyBody(),
        });
        expect(enterprise.status, enterprise.text).toBe(201);
        const team = await call('/policies', {
          as: 'teamLead',
          method: 'POST',
          body: policyBody({
            scope: 'team',
            scopeId: 'platform',
            name: 'Platform keeps it internal',
            content: 'max_classification_shared: internal\n',
          }),
        });
        expect(team.status, team.text).toBe(201);
        const input = {
          exchange_type: 'information_query',
          initiator_tenant_id: 'acme',
          responder_tenant_id: 'acme',
          initiator_org_unit: 'eng',
          responder_org_unit: 'eng',
          classification_level: 'confidential',
        };
        const ask = (userId: string) => ({ userId, domain: 'agent-to-agent', input });
        const explain = (as: Who, userId: string) =>
          call('/decisions/explain', { as, method: 'POST', body: ask(userId) });

        const r = await explain('orgAdmin', 'u-alice');
        expect(r.status, r.text).toBe(200);
        expect(r.body.decision).toMatchObject({
          allow: false,
          policyIds: [enterprise.body.id, team.body.id],
        });
        expect(r.body.decidedBy).toMatchObject({ id: team.body.id, scope: 'team', scopeId: 'platform' });
        expect(r.body.effective).toEqual({ enabled: true, max_classification_shared: 'internal' });
        expect(r.body.trace.map((l: any) => `${l.scope}:${l.scopeId}:${l.decision.allow}`)).toEqual([
          'enterprise:acme:true',
          'org:eng:true',
          'team:platform:false',
          'user:u-alice:false',
        ]);
        expect(r.body.trace[2].policies[0].contributed).toEqual([
          { key: 'max_classification_shared', value: 'internal' },
        ]);
        // The same decision POST /decisions gives alice herself.
        const own = await call('/decisions', {
          as: 'user',
          method: 'POST',
          body: { ...ask('x'), userId: undefined },
        });
        expect(own.body).toEqual(r.body.decision);

        // Scoped like the policy reads: the tenant, one's org, one's team, oneself.
        const inScope: [Who, string][] = [
          ['enterpriseAdmin', 'u-bob'],
          ['orgAdminSales', 'u-bob'],
          ['teamLead', 'u-alice'],
          ['user', 'u-alice'],
          ['userSales', 'u-bob'],
        ];
        for (const [as, userId] of inScope)
          expect((await explain(as, userId)).status, `${as} → ${userId}`).toBe(200);
        const outOfScope: [Who, string][] = [
          ['orgAdmin', 'u-bob'],
          ['orgAdminSales', 'u-alice'],
          ['teamLead', 'u-bob'],
          ['user', 'u-bob'],
          ['userSales', 'u-alice'],
          ['otherTenantAdmin', 'u-alice'],
          ['enterpriseAdmin', 'u-nobody'],
        ];
        for (const [as, userId] of outOfScope) h.expectError(await explain(as, userId), 404, 'NOT_FOUND');
        h.expectError(
          await call('/decisions/explain', {
            as: 'enterpriseAdmin',
            method: 'POST',
            body: { userId: 'u-alice', domain: 'weather', input: {} },
          }),
          400,
        );
        // Audited as the caller's policy decision, naming whom it was about.
        const audit = await call('/audit?action_type=policy_decision', { as: 'enterpriseAdmin' });
        expect(
          audit.body.entries.some(
            (e: any) =>
              e.userId === 'oa-eng' &&
              e.actionDetail.operation === 'explain' &&
              e.actionDetail.subjectUserId === 'u-alice',
          ),
        ).toBe(true);
      } finally {
        await g.close();
      }
    });
  });
}
