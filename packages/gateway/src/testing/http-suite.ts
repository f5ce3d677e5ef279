/** biome-ignore-all lint/suspicious/noExplicitAny: JSON bodies of a black-box HTTP suite are read without schemas */
/**
 * The HTTP conformance suite of the governance service: every route, role and error of the spec,
 * run against a real server on port 0 built by an adapter (Express, Koa, or plain node:http).
 *
 *   describeHttpSuite('express', async (governance) => { …listen on 0…; return { url, close } });
 */
import { randomUUID } from 'node:crypto';
import type {
  Decision,
  DecisionEngine,
  OrgDirectory,
  PolicyEngineUnreachableError,
  PolicyStore,
  Result,
} from '@agentgov/core';
import { err, ManualClock, PolicyEngineUnreachableError as Unreachable } from '@agentgov/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Governance, GovernanceConfig } from '../governance';
import { createMemoryDependencies } from '../memory';
import { startTestIssuer, type TestAccount, type TestIssuer } from './oidc-issuer';
import { createTestGovernance } from './servers';

export interface StartedServer {
  /** Origin of the server, e.g. `http://127.0.0.1:53211`. */
  url: string;
  close(): Promise<void>;
}

/** Starts `governance` behind the adapter under test on 127.0.0.1 port 0. */
export type ServerFactory = (governance: Governance) => Promise<StartedServer>;

export const ACCOUNTS = {
  enterpriseAdmin: {
    sub: 'ea-1',
    email: 'ea@acme.test',
    roles: ['enterprise_admin'],
    tenant_id: 'acme',
    org_unit: 'hq',
  },
  orgAdmin: {
    sub: 'oa-eng',
    email: 'oa@acme.test',
    roles: ['org_admin'],
    tenant_id: 'acme',
    org_unit: 'eng',
  },
  orgAdminSales: {
    sub: 'oa-sales',
    email: 'os@acme.test',
    roles: ['org_admin'],
    tenant_id: 'acme',
    org_unit: 'sales',
  },
  teamLead: {
    sub: 'tl-platform',
    email: 'tl@acme.test',
    roles: ['team_lead'],
    tenant_id: 'acme',
    org_unit: 'eng',
    team: 'platform',
  },
  user: {
    sub: 'u-alice',
    email: 'alice@acme.test',
    roles: ['user'],
    tenant_id: 'acme',
    org_unit: 'eng',
    team: 'platform',
  },
  userSales: { sub: 'u-bob', email: 'bob@acme.test', roles: ['user'], tenant_id: 'acme', org_unit: 'sales' },
  otherTenantAdmin: {
    sub: 'ea-globex',
    email: 'ea@globex.test',
    roles: ['enterprise_admin'],
    tenant_id: 'globex',
  },
} satisfies Record<string, TestAccount>;
type Who = keyof typeof ACCOUNTS;

const policyBody = (over: Record<string, unknown> = {}) => ({
  scope: 'enterprise',
  scopeId: 'acme',
  domain: 'agent-to-agent',
  name: 'Enterprise A2A',
  version: '1.0.0',
  content: 'enabled: true\nmax_classification_shared: confidential\n',
  changeReason: 'initial',
  ...over,
});

class DownEngine implements DecisionEngine {
  readonly name = 'opa';
  async decide(): Promise<Result<Decision, PolicyEngineUnreachableError>> {
    return err(new Unreachable('connection refused'));
  }
  async health(): Promise<boolean> {
    return false;
  }
}

function failingPolicyStore(): PolicyStore {
  const down = async (): Promise<never> => {
    throw new Error('ECONNREFUSED 127.0.0.1:5432');
  };
  return { insert: down, update: down, get: down, list: down, count: down };
}

export function describeHttpSuite(name: string, startServer: ServerFactory): void {
  describe(`HTTP conformance: ${name}`, () => {
    let idp: TestIssuer;
    let server: StartedServer;
    let gov: Governance;
    const tokens = {} as Record<Who, string>;
    const extra: StartedServer[] = [];

    async function setup(
      over: Partial<GovernanceConfig> = {},
    ): Promise<{ gov: Governance; server: StartedServer }> {
      const g = await createTestGovernance(idp, { limits: { heartbeatMs: 60_000 }, ...over });
      await g.start();
      const s = await startServer(g);
      return { gov: g, server: s };
    }

    beforeAll(async () => {
      idp = await startTestIssuer();
      ({ gov, server } = await setup());
      for (const who of Object.keys(ACCOUNTS) as Who[]) tokens[who] = await idp.signIdToken(ACCOUNTS[who]);
    });
    afterAll(async () => {
      for (const s of extra) await s.close();
      await server?.close();
      await gov?.close();
      await idp?.close();
    });

    async function call(
      path: string,
      init: {
        method?: string;
        as?: Who;
        token?: string;
        body?: unknown;
        raw?: BodyInit;
        headers?: Record<string, string>;
        base?: string;
      } = {},
    ): Promise<{ status: number; headers: Headers; body: any; text: string }> {
      const headers = new Headers(init.headers);
      const token = init.token ?? (init.as ? tokens[init.as] : undefined);
      if (token) headers.set('authorization', `Bearer ${token}`);
      let body: BodyInit | undefined = init.raw;
      if (init.body !== undefined) {
        body = JSON.stringify(init.body);
        headers.set('content-type', 'application/json');
      }
      const res = await fetch(`${init.base ?? server.url}/api/v1${path}`, {
        method: init.method ?? 'GET',
        headers,
        ...(body !== undefined ? { body } : {}),
      });
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      return { status: res.status, headers: res.headers, body: parsed, text };
    }

    function expectError(r: { status: number; body: any; headers: Headers }, status: number, code?: string) {
      expect(r.status, JSON.stringify(r.body)).toBe(status);
      expect(typeof r.body?.error).toBe('string');
      expect(typeof r.body?.message).toBe('string');
      if (code) expect(r.body.error).toBe(code);
      expect(r.headers.get('x-request-id')).toBeTruthy();
    }

    // ---------------------------------------------------------------------------------------
    describe('kernel', () => {
      it('echoes a well-formed X-Request-Id and generates one otherwise', async () => {
        const echoed = await call('/status', { headers: { 'x-request-id': 'abc-123.DEF:4_5' } });
        expect(echoed.headers.get('x-request-id')).toBe('abc-123.DEF:4_5');
        const fresh = await call('/status', { headers: { 'x-request-id': 'bad id with spaces' } });
        expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
        const none = await call('/nope');
        expect(none.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      });
      it('answers an unknown route with 404 and the error body (no framework default)', async () => {
        expectError(await call('/does-not-exist'), 404, 'NOT_FOUND');
        expectError(
          await call('/does-not-exist', { as: 'enterpriseAdmin', method: 'POST', body: {} }),
          404,
          'NOT_FOUND',
        );
      });
      it('answers a known path with a wrong method with 405 and Allow', async () => {
        const r = await call('/status', { method: 'PUT', body: {} });
        expectError(r, 405, 'method_not_allowed');
        expect(r.headers.get('allow')).toContain('GET');
      });
      it('rejects bodies over 1 MiB with 413, with and without Content-Length', async () => {
        const big = 'x'.repeat(1024 * 1024 + 1);
        expectError(
          await call('/policies', {
            as: 'enterpriseAdmin',
            method: 'POST',
            raw: big,
            headers: { 'content-type': 'application/json' },
          }),
          413,
          'payload_too_large',
        );
        const chunks = new ReadableStream<Uint8Array>({
          start(c) {
            for (let i = 0; i < 17; i++) c.enqueue(new Uint8Array(64 * 1024).fill(32));
            c.close();
          },
        });
        const res = await fetch(`${server.url}/api/v1/policies`, {
          method: 'POST',
          headers: { authorization: `Bearer ${tokens.enterpriseAdmin}`, 'content-type': 'application/json' },
          body: chunks,
          duplex: 'half',
        } as RequestInit);
        expect(res.headers.get('content-length')).not.toBe('0');
        expect(res.status).toBe(413);
        expect((await res.json()).error).toBe('payload_too_large');
      });
      it('rejects malformed JSON with 400', async () => {
        const r = await call('/policies', {
          as: 'enterpriseAdmin',
          method: 'POST',
          raw: '{"scope": ',
          headers: { 'content-type': 'application/json' },
        });
        expectError(r, 400, 'invalid_type');
      });
      it('names the missing field (missing_type) and the invalid one (invalid_type)', async () => {
        const { name: _n, ...noName } = policyBody();
        const missing = await call('/policies', { as: 'enterpriseAdmin', method: 'POST', body: noName });
        expectError(missing, 400, 'missing_type');
        expect(missing.body.message).toContain('name');
        const invalid = await call('/policies', {
          as: 'enterpriseAdmin',
          method: 'POST',
          body: policyBody({ scope: 'galaxy' }),
        });
        expectError(invalid, 400, 'invalid_type');
        expect(JSON.stringify(invalid.body)).toContain('scope');
      });
      it('serves the OpenAPI 3.1 document of the route table', async () => {
        const r = await call('/openapi.json');
        expect(r.status).toBe(200);
        expect(r.body.openapi).toBe('3.1.0');
        for (const p of [
          '/api/v1/policies',
          '/api/v1/policies/{id}',
          '/api/v1/audit',
          '/api/v1/audit/export',
          '/api/v1/auth/callback',
          '/api/v1/auth/userinfo',
          '/api/v1/connectors',
          '/api/v1/connectors/{id}',
          '/api/v1/tenants',
          '/api/v1/tenants/{id}/status',
          '/api/v1/status',
          '/api/v1/metrics',
        ]) {
          expect(r.body.paths[p], p).toBeDefined();
        }
        expect(r.body.paths['/api/v1/policies'].post.requestBody).toBeDefined();
      });
    });

    // ---------------------------------------------------------------------------------------
    describe('authentication', () => {
      it('401 authentication_required without credentials', async () => {
        expectError(await call('/policies'), 401, 'authentication_required');
        expectError(
          await call('/policies', { headers: { authorization: 'Basic Zm9vOmJhcg==' } }),
          401,
          'authentication_required',
        );
      });
      it('401 invalid_token for malformed, foreign-key, wrong-audience, wrong-issuer, expired and not-yet-valid tokens', async () => {
        const a = ACCOUNTS.user;
        const bad = [
          'not-a-jwt',
          await idp.signIdToken(a, { key: await idp.foreignKey(), kid: 'unknown-kid' }),
          await idp.signIdToken(a, { audience: 'someone-else' }),
          await idp.signIdToken(a, { issuer: 'https://evil.example' }),
          await idp.signIdToken(a, { expiresInSeconds: -120 }),
          await idp.signIdToken(a, { notBeforeSeconds: 600 }),
          await idp.signIdToken({ ...a, tenant_id: undefined } as TestAccount),
        ];
        for (const token of bad) expectError(await call('/policies', { token }), 401, 'invalid_token');
      });
      it('POST /auth/callback exchanges the code at the real token endpoint and sets the session cookie', async () => {
        const code = await idp.issueCode(ACCOUNTS.orgAdmin);
        const r = await call('/auth/callback', { method: 'POST', body: { code } });
        expect(r.status, r.text).toBe(200);
        expect(r.body).toEqual({
          authenticated: true,
          user: { userId: 'oa-eng', email: 'oa@acme.test', roles: ['org_admin'], orgUnit: 'eng' },
        });
        const cookie = r.headers.get('set-cookie') ?? '';
        expect(cookie).toMatch(/^session=[A-Za-z0-9_-]{43};/);
        for (const attr of ['HttpOnly', 'Secure', 'SameSite=Strict', 'Max-Age=3600', 'Path=/'])
          expect(cookie).toContain(attr);
        const session = cookie.split(';')[0]!;
        const info = await call('/auth/userinfo', { headers: { cookie: session } });
        expect(info.status).toBe(200);
        expect(info.body).toMatchObject({
          userId: 'oa-eng',
          email: 'oa@acme.test',
          roles: ['org_admin'],
          orgUnit: 'eng',
          tenantId: 'acme',
          effectivePermissions: {
            canManagePolicies: true,
            policyScope: 'org',
            canQueryAudit: true,
            auditScope: 'org',
          },
        });
        // the session also authenticates other routes
        expect((await call('/connectors', { headers: { cookie: session } })).status).toBe(200);
        // a code is redeemable once
        expectError(
          await call('/auth/callback', { method: 'POST', body: { code } }),
          502,
          'token_exchange_failed',
        );
      });
      it('POST /auth/callback: bad code → 502 token_exchange_failed; no code → 400 missing_type', async () => {
        expectError(
          await call('/auth/callback', { method: 'POST', body: { code: 'bogus' } }),
          502,
          'token_exchange_failed',
        );
        const r = await call('/auth/callback', { method: 'POST', body: {} });
        expectError(r, 400, 'missing_type');
        expect(r.body.message).toContain('code');
        expectError(
          await call('/auth/callback', { method: 'POST', body: { code: 42 } }),
          400,
          'invalid_type',
        );
      });
      it('GET /auth/userinfo: no cookie → no_session; unknown session → no_session', async () => {
        expectError(await call('/auth/userinfo'), 401, 'no_session');
        expectError(
          await call('/auth/userinfo', { headers: { cookie: `session=${'A'.repeat(43)}` } }),
          401,
          'no_session',
        );
      });
      it('an expired session → 401 session_expired', async () => {
        const clock = new ManualClock(Date.now());
        const { server: s, gov: g } = await setup({ clock });
        extra.push(s);
        try {
          const code = await idp.issueCode(ACCOUNTS.user);
          const r = await call('/auth/callback', { method: 'POST', body: { code }, base: s.url });
          expect(r.status, r.text).toBe(200);
          const cookie = (r.headers.get('set-cookie') ?? '').split(';')[0]!;
          expect((await call('/auth/userinfo', { headers: { cookie }, base: s.url })).status).toBe(200);
          clock.advance(3601_000);
          expectError(
            await call('/auth/userinfo', { headers: { cookie }, base: s.url }),
            401,
            'session_expired',
          );
          expectError(await call('/policies', { headers: { cookie }, base: s.url }), 401);
        } finally {
          await g.close();
        }
      });
      it('userinfo reports effective permissions per role', async () => {
        for (const [who, policyScope, auditScope, manage] of [
          ['enterpriseAdmin', 'enterprise', 'enterprise', true],
          ['teamLead', 'team', 'user', true],
          ['user', 'user', 'user', false],
        ] as const) {
          const r = await call('/auth/userinfo', { as: who });
          expect(r.status).toBe(200);
          expect(r.body.effectivePermissions).toMatchObject({
            canManagePolicies: manage,
            policyScope,
            auditScope,
          });
        }
      });
    });

    // ---------------------------------------------------------------------------------------
    describe('policies', () => {
      let enterpriseId: string;
      let teamId: string;
      beforeAll(async () => {
        // learn the org tree from the claims of every account
        for (const who of Object.keys(ACCOUNTS) as Who[]) await call('/auth/userinfo', { as: who });
      });
      it('enterprise_admin creates an enterprise policy → 201 active, and it is audited', async () => {
        const r = await call('/policies', { as: 'enterpriseAdmin', method: 'POST', body: policyBody() });
        expect(r.status, r.text).toBe(201);
        expect(r.body).toMatchObject({
          scope: 'enterprise',
          scopeId: 'acme',
          status: 'active',
          createdBy: 'ea-1',
        });
        expect(r.body.id).toMatch(/^[0-9a-f-]{36}$/);
        enterpriseId = r.body.id;
        const audit = await call('/audit?action_type=policy_change', { as: 'enterpriseAdmin' });
        expect(audit.body.entries.some((e: any) => e.actionDetail.policyId === enterpriseId)).toBe(true);
      });
      it('a lower scope cannot expand its parent: 400 POLICY_HIERARCHY_VIOLATION with detail', async () => {
        const r = await call('/policies', {
          as: 'orgAdmin',
          method: 'POST',
          body: policyBody({
            scope: 'org',
            scopeId: 'eng',
            content: 'max_classification_shared: restricted\n',
          }),
        });
        expectError(r, 400, 'POLICY_HIERARCHY_VIOLATION');
        expect(Array.isArray(r.body.detail)).toBe(true);
        expect(r.body.detail[0]).toMatchObject({
          key: 'max_classification_shared',
          scope: 'org',
          parentScope: 'enterprise',
        });
      });
      it('RBAC by scope: team_lead writes in their team, not elsewhere; users cannot write', async () => {
        const ok = await call('/policies', {
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
        expectError(
          await call('/policies', {
            as: 'teamLead',
            method: 'POST',
            body: policyBody({ scope: 'org', scopeId: 'eng' }),
          }),
          403,
          'forbidden',
        );
        expectError(
          await call('/policies', {
            as: 'user',
            method: 'POST',
            body: policyBody({ scope: 'user', scopeId: 'u-alice' }),
          }),
          403,
          'forbidden',
        );
        expectError(
          await call('/policies', {
            as: 'orgAdminSales',
            method: 'POST',
            body: policyBody({ scope: 'team', scopeId: 'platform' }),
          }),
          403,
          'forbidden',
        );
      });
      it('GET /policies is scoped by role; filters validate', async () => {
        const all = await call('/policies', { as: 'enterpriseAdmin' });
        expect(all.status).toBe(200);
        expect(all.body.map((p: any) => p.id)).toEqual(expect.arrayContaining([enterpriseId, teamId]));
        const sales = await call('/policies', { as: 'userSales' });
        expect(sales.body.map((p: any) => p.id)).toContain(enterpriseId);
        expect(sales.body.map((p: any) => p.id)).not.toContain(teamId);
        const team = await call('/policies?scope=team', { as: 'user' });
        expect(team.body.map((p: any) => p.id)).toEqual([teamId]);
        expectError(await call('/policies?scope=planet', { as: 'user' }), 400, 'invalid_type');
        expect((await call('/policies', { as: 'otherTenantAdmin' })).body).toEqual([]);
      });
      it('GET /policies/{id}: 200, invisible or unknown or another tenant → 404 NOT_FOUND', async () => {
        expect((await call(`/policies/${enterpriseId}`, { as: 'user' })).body.id).toBe(enterpriseId);
        expectError(await call(`/policies/${teamId}`, { as: 'userSales' }), 404, 'NOT_FOUND');
        expectError(await call(`/policies/${randomUUID()}`, { as: 'enterpriseAdmin' }), 404, 'NOT_FOUND');
        expectError(await call(`/policies/${enterpriseId}`, { as: 'otherTenantAdmin' }), 404, 'NOT_FOUND');
      });
      it('PUT /policies/{id} updates content and re-validates the hierarchy', async () => {
        const r = await call(`/policies/${teamId}`, {
          as: 'teamLead',
          method: 'PUT',
          body: { content: 'max_classification_shared: public\n', changeReason: 'tighten' },
        });
        expect(r.status, r.text).toBe(200);
        expect(r.body.content).toBe('max_classification_shared: public\n');
        expectError(
          await call(`/policies/${teamId}`, {
            as: 'teamLead',
            method: 'PUT',
            body: { content: 'max_classification_shared: restricted\n', changeReason: 'widen' },
          }),
          400,
          'POLICY_HIERARCHY_VIOLATION',
        );
        expectError(
          await call(`/policies/${teamId}`, { as: 'teamLead', method: 'PUT', body: { content: 'x: 1' } }),
          400,
          'missing_type',
        );
        expectError(
          await call(`/policies/${enterpriseId}`, {
            as: 'user',
            method: 'PUT',
            body: { content: 'a', changeReason: 'b' },
          }),
          403,
          'forbidden',
        );
      });
      it('DELETE /policies/{id} → 200 deprecated, record kept', async () => {
        const r = await call(`/policies/${teamId}`, { as: 'orgAdmin', method: 'DELETE' });
        expect(r.status, r.text).toBe(200);
        expect(r.body).toMatchObject({ id: teamId, status: 'deprecated' });
        expect((await call(`/policies/${teamId}`, { as: 'enterpriseAdmin' })).body.status).toBe('deprecated');
        expectError(
          await call(`/policies/${enterpriseId}`, { as: 'orgAdmin', method: 'DELETE' }),
          403,
          'forbidden',
        );
      });
    });

    // ---------------------------------------------------------------------------------------
    describe('audit', () => {
      it('GET /audit: tenant- and role-scoped, both spellings, pagination', async () => {
        await call('/decisions', {
          as: 'user',
          method: 'POST',
          body: {
            domain: 'agent-to-agent',
            input: {
              exchange_type: 'information_query',
              initiator_tenant_id: 'acme',
              responder_tenant_id: 'acme',
              initiator_org_unit: 'eng',
              responder_org_unit: 'eng',
              classification_level: 'internal',
            },
          },
        });
        const ea = await call('/audit?page_size=1000', { as: 'enterpriseAdmin' });
        expect(ea.status).toBe(200);
        expect(ea.body.total).toBeGreaterThan(0);
        expect(ea.body.entries.every((e: any) => e.tenantId === 'acme')).toBe(true);
        const mine = await call('/audit', { as: 'user' });
        expect(mine.body.total).toBeGreaterThan(0);
        expect(mine.body.entries.every((e: any) => e.userId === 'u-alice')).toBe(true);
        const theirs = await call('/audit?user_id=ea-1', { as: 'user' });
        expect(theirs.body).toEqual({ entries: [], total: 0 });
        const snake = await call('/audit?action_type=policy_decision&user_id=u-alice', {
          as: 'enterpriseAdmin',
        });
        const camel = await call('/audit?actionType=policy_decision&userId=u-alice', {
          as: 'enterpriseAdmin',
        });
        expect(snake.body.total).toBeGreaterThan(0);
        expect(camel.body.total).toBe(snake.body.total);
        const org = await call('/audit', { as: 'orgAdmin' });
        expect(new Set(org.body.entries.map((e: any) => e.userId))).not.toContain('ea-1');
        const page = await call('/audit?page=1&page_size=1', { as: 'enterpriseAdmin' });
        expect(page.body.entries).toHaveLength(1);
        expectError(await call('/audit?page_size=1001', { as: 'enterpriseAdmin' }), 400, 'invalid_type');
        expectError(await call('/audit?action_type=nope', { as: 'enterpriseAdmin' }), 400, 'invalid_type');
        expectError(await call('/audit?from=yesterday', { as: 'enterpriseAdmin' }), 400, 'invalid_type');
        const range = await call('/audit?from=2000-01-01&to=2000-01-02', { as: 'enterpriseAdmin' });
        expect(range.body).toEqual({ entries: [], total: 0 });
        expect(
          (await call('/audit', { as: 'otherTenantAdmin' })).body.entries.every(
            (e: any) => e.tenantId === 'globex',
          ),
        ).toBe(true);
      });
      it('GET /audit/{id}: own entry 200; another user’s or tenant’s → 404', async () => {
        const ea = await call('/audit?page_size=1000', { as: 'enterpriseAdmin' });
        const eaEntry = ea.body.entries.find((e: any) => e.userId === 'ea-1');
        const aliceEntry = ea.body.entries.find((e: any) => e.userId === 'u-alice');
        expect((await call(`/audit/${aliceEntry.id}`, { as: 'user' })).body.id).toBe(aliceEntry.id);
        expectError(await call(`/audit/${eaEntry.id}`, { as: 'user' }), 404, 'NOT_FOUND');
        expectError(await call(`/audit/${eaEntry.id}`, { as: 'otherTenantAdmin' }), 404, 'NOT_FOUND');
      });
      it('GET /audit/export: JSON and CSV with the spec headers; enterprise_admin only', async () => {
        const j = await call('/audit/export', { as: 'enterpriseAdmin' });
        expect(j.status).toBe(200);
        expect(j.headers.get('content-type')).toContain('application/json');
        expect(j.body.total).toBe(j.body.entries.length);
        expect(j.body.total).toBeGreaterThan(0);
        const c = await call('/audit/export?format=csv&action_type=policy_change', { as: 'enterpriseAdmin' });
        expect(c.status).toBe(200);
        expect(c.headers.get('content-type')).toContain('text/csv');
        expect(c.headers.get('content-disposition')).toBe('attachment; filename=audit-export.csv');
        const lines = c.text.trim().split('\r\n');
        expect(lines[0]).toBe(
          'id,tenant_id,user_id,timestamp,action_type,data_classification,policy_applied,policy_result,outcome,request_id',
        );
        expect(lines.length).toBeGreaterThan(1);
        expect(lines.slice(1).every((l) => l.split(',')[4] === 'policy_change')).toBe(true);
        expectError(await call('/audit/export', { as: 'orgAdmin' }), 403, 'forbidden');
        expectError(await call('/audit/export?format=xml', { as: 'enterpriseAdmin' }), 400, 'invalid_type');
      });
    });

    // ---------------------------------------------------------------------------------------
    describe('connectors', () => {
      it('create, list, disable; the secret reference only', async () => {
        const r = await call('/connectors', {
          as: 'orgAdmin',
          method: 'POST',
          body: { type: 'codehost', credentials_secret_ref: 'codehost-token', config: { org: 'acme' } },
        });
        expect(r.status, r.text).toBe(201);
        expect(r.body).toMatchObject({
          type: 'codehost',
          tenantId: 'acme',
          credentialsSecretRef: 'codehost-token',
          config: { org: 'acme' },
          status: 'active',
          defaultClassification: 'public',
        });
        expect(r.body.credentials_secret_ref).toBeUndefined();
        const mail = await call('/connectors', {
          as: 'enterpriseAdmin',
          method: 'POST',
          body: { type: 'mail', credentials_secret_ref: 'm' },
        });
        expect(mail.body.defaultClassification).toBe('internal');
        const list = await call('/connectors', { as: 'enterpriseAdmin' });
        expect(list.body.total).toBe(list.body.connectors.length);
        expect(list.body.connectors.map((c: any) => c.id)).toContain(r.body.id);
        const del = await call(`/connectors/${r.body.id}`, { as: 'orgAdmin', method: 'DELETE' });
        expect(del.status).toBe(200);
        expect(del.body).toEqual({ id: r.body.id, status: 'disabled' });
        const after = await call('/connectors', { as: 'orgAdmin' });
        expect(after.body.connectors.find((c: any) => c.id === r.body.id).status).toBe('disabled');
        expectError(
          await call(`/connectors/${r.body.id}`, { as: 'otherTenantAdmin', method: 'DELETE' }),
          404,
          'NOT_FOUND',
        );
        expect((await call('/connectors', { as: 'otherTenantAdmin' })).body.total).toBe(0);
      });
      it('validation and roles', async () => {
        const m = await call('/connectors', {
          as: 'orgAdmin',
          method: 'POST',
          body: { credentials_secret_ref: 'x' },
        });
        expectError(m, 400, 'missing_type');
        expect(m.body.message).toContain('type');
        expectError(
          await call('/connectors', {
            as: 'orgAdmin',
            method: 'POST',
            body: { type: 'fax', credentials_secret_ref: 'x' },
          }),
          400,
          'invalid_type',
        );
        expectError(await call('/connectors', { as: 'teamLead' }), 403, 'forbidden');
        expectError(
          await call('/connectors', {
            as: 'user',
            method: 'POST',
            body: { type: 'mail', credentials_secret_ref: 'x' },
          }),
          403,
          'forbidden',
        );
      });
    });

    // ---------------------------------------------------------------------------------------
    describe('tenants, status, metrics', () => {
      it('GET /tenants and /tenants/{id}/status', async () => {
        const list = await call('/tenants', { as: 'enterpriseAdmin' });
        expect(list.status).toBe(200);
        expect(list.body.total).toBe(1);
        expect(list.body.tenants[0]).toMatchObject({ id: 'acme', status: 'active' });
        const t = await call('/tenants/acme/status', { as: 'enterpriseAdmin' });
        expect(t.status).toBe(200);
        expect(t.body).toMatchObject({ id: 'acme', name: 'acme', status: 'active' });
        expect(t.body.gatewayInstances).toBeGreaterThanOrEqual(1);
        for (const k of ['connectorCount', 'policyCount', 'userCount'])
          expect(Number.isInteger(t.body[k])).toBe(true);
        expect(typeof t.body.createdAt).toBe('string');
        expectError(await call('/tenants/globex/status', { as: 'enterpriseAdmin' }), 404, 'tenant_not_found');
        expectError(await call('/tenants/nope/status', { as: 'enterpriseAdmin' }), 404, 'tenant_not_found');
        expectError(await call('/tenants', { as: 'orgAdmin' }), 403, 'forbidden');
      });
      it('GET /status is public and healthy', async () => {
        const r = await call('/status');
        expect(r.status).toBe(200);
        expect(r.body).toMatchObject({
          status: 'healthy',
          components: {
            gateway: { status: 'healthy' },
            policyEngine: { status: 'healthy' },
            opa: { status: 'healthy' },
            database: { status: 'healthy' },
          },
        });
        expect(typeof r.body.components.connectors).toBe('object');
        expect(Number.isNaN(Date.parse(r.body.timestamp))).toBe(false);
      });
      it('GET /metrics counts real activity', async () => {
        const before = await call('/metrics', { as: 'orgAdmin' });
        expect(before.status).toBe(200);
        for (const k of [
          'activeUsers',
          'autoResponsesSent',
          'tasksDiscovered',
          'modelCalls',
          'policyEvaluations',
          'auditEntries',
        ]) {
          expect(Number.isInteger(before.body[k]), k).toBe(true);
        }
        expect(before.body.activeUsers).toBeGreaterThanOrEqual(5);
        await call('/decisions', {
          as: 'user',
          method: 'POST',
          body: {
            domain: 'integrations',
            input: {
              action: 'tracker_update',
              context: { targetSystem: 'tracker', additional: { source: 'work-tracking' } },
            },
          },
        });
        const after = await call('/metrics', { as: 'enterpriseAdmin' });
        expect(after.body.policyEvaluations).toBe(before.body.policyEvaluations + 1);
        expect(after.body.auditEntries).toBeGreaterThan(before.body.auditEntries);
        expectError(await call('/metrics', { as: 'teamLead' }), 403, 'forbidden');
      });
      it('decision engine unreachable → decisions 503 POLICY_ENGINE_UNREACHABLE and /status 503 degraded', async () => {
        const { server: s, gov: g } = await setup({ decisionEngine: new DownEngine() });
        extra.push(s);
        try {
          const d = await call('/decisions', {
            as: 'user',
            base: s.url,
            method: 'POST',
            body: {
              domain: 'integrations',
              input: { action: 'tracker_update', context: { targetSystem: 'tracker' } },
            },
          });
          expectError(d, 503, 'POLICY_ENGINE_UNREACHABLE');
          const st = await call('/status', { base: s.url });
          expect(st.status).toBe(503);
          expect(st.body).toMatchObject({
            status: 'degraded',
            components: { opa: { status: 'unhealthy' }, database: { status: 'healthy' } },
          });
        } finally {
          await g.close();
        }
      });
      it('database down → 503 service_unavailable, /status degraded', async () => {
        const deps = await createMemoryDependencies();
        const dir: OrgDirectory = deps.directory;
        const { server: s, gov: g } = await setup({
          stores: { ...deps.stores, policies: failingPolicyStore() },
          directory: dir,
          probes: { database: async () => false },
        });
        extra.push(s);
        try {
          expectError(
            await call('/policies', { as: 'enterpriseAdmin', base: s.url }),
            503,
            'service_unavailable',
          );
          expectError(
            await call('/policies', {
              as: 'enterpriseAdmin',
              base: s.url,
              method: 'POST',
              body: policyBody(),
            }),
            503,
            'service_unavailable',
          );
          const st = await call('/status', { base: s.url });
          expect(st.status).toBe(503);
          expect(st.body.components.database.status).toBe('unhealthy');
        } finally {
          await g.close();
        }
      });
    });

    // ---------------------------------------------------------------------------------------
    describe('rate limits', () => {
      it('60 policy mutations per minute per tenant, then 429 with Retry-After and RateLimit-*', async () => {
        const { server: s, gov: g } = await setup();
        extra.push(s);
        try {
          const statuses: number[] = [];
          for (let i = 0; i < 60; i++) {
            const r = await call('/policies', {
              as: i % 2 ? 'enterpriseAdmin' : 'orgAdmin',
              base: s.url,
              method: 'POST',
              body: {},
            });
            statuses.push(r.status);
            if (i === 0) {
              expect(r.headers.get('ratelimit-limit')).toBe('60');
              expect(r.headers.get('ratelimit-remaining')).toBe('59');
              expect(r.headers.get('ratelimit-policy')).toContain('60;w=60');
            }
          }
          expect(statuses.every((x) => x === 400)).toBe(true);
          const limited = await call('/policies', {
            as: 'enterpriseAdmin',
            base: s.url,
            method: 'POST',
            body: policyBody(),
          });
          expectError(limited, 429, 'rate_limit_exceeded');
          const retry = Number(limited.headers.get('retry-after'));
          expect(retry).toBeGreaterThanOrEqual(1);
          expect(retry).toBeLessThanOrEqual(60);
          expect(limited.headers.get('ratelimit-remaining')).toBe('0');
          // another tenant is not affected; reads are another category
          expect(
            (await call('/policies', { as: 'otherTenantAdmin', base: s.url, method: 'POST', body: {} }))
              .status,
          ).toBe(400);
          expect((await call('/audit', { as: 'enterpriseAdmin', base: s.url })).status).toBe(200);
        } finally {
          await g.close();
        }
      });
      it('audit export: 10 per minute', async () => {
        const { server: s, gov: g } = await setup();
        extra.push(s);
        try {
          for (let i = 0; i < 10; i++)
            expect((await call('/audit/export', { as: 'enterpriseAdmin', base: s.url })).status).toBe(200);
          expectError(await call('/audit/export', { as: 'enterpriseAdmin', base: s.url }), 429);
        } finally {
          await g.close();
        }
      });
      it('/status: 300 per minute per client address', async () => {
        const { server: s, gov: g } = await setup();
        extra.push(s);
        try {
          const results = await Promise.all(
            Array.from({ length: 301 }, () => fetch(`${s.url}/api/v1/status`).then((r) => r.status)),
          );
          expect(results.filter((x) => x === 200)).toHaveLength(300);
          expect(results.filter((x) => x === 429)).toHaveLength(1);
        } finally {
          await g.close();
        }
      });
    });
  });
}
