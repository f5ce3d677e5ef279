/** biome-ignore-all lint/suspicious/noExplicitAny: JSON bodies of a black-box HTTP suite are read without schemas */
/**
 * The access matrix, generated from the route table (`governance.routes`): every route × every
 * role (and no credentials) × own/other tenant × own/other org unit → the expected status.
 * - no credentials on an authenticated route → 401; a role the route does not list → 403;
 * - another tenant's resource → 404 (never 403: existence is not leaked);
 * - a policy or audit entry of another org unit → 404 for org admins and users of that other unit;
 * - an allowed role on its own tenant's resource passes authorisation (2xx, or 400 for the empty
 *   body a mutation is sent here — validation comes after the role check).
 * After every refused request the stored state (policies, connectors, audited writes) is
 * unchanged. The resources: a policy at org `eng`, a connector and an audit entry of alice (eng),
 * all in tenant `acme`.
 */
import type { Governance } from '@agentgov/gateway';
import {
  type ServerFactory,
  type StartedServer,
  startTestIssuer,
  type TestIssuer,
} from '@agentgov/gateway/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNTS, type CallInit, callApi, policyBody, type Who } from './harness';
import { createTestService } from './service';

const UNLIMITED = { points: 1e9, durationSeconds: 60 };
/** Every category lifted: the matrix sends thousands of requests (limits are tested elsewhere). */
export const UNLIMITED_RATE_LIMITS = Object.fromEntries(
  [
    'policy_mutations',
    'audit_queries',
    'audit_export',
    'admin',
    'system_status',
    'auth_failures',
    'auth_login',
  ].map((k) => [k, UNLIMITED]),
);

type Caller = Who | 'anonymous';
const CALLERS: Caller[] = [
  'anonymous',
  'enterpriseAdmin',
  'orgAdmin',
  'orgAdminSales',
  'teamLead',
  'user',
  'userSales',
  'otherTenantAdmin',
];

const roleOf = (c: Caller): string | undefined =>
  c === 'anonymous' ? undefined : (ACCOUNTS[c].roles[0] as string);
const otherOrg = (c: Caller): boolean => c === 'orgAdminSales' || c === 'userSales';

interface MatrixResources {
  policyId: string;
  connectorId: string;
  auditId: string;
}

/** The path of a route with its `{id}` filled: the acme resource of that kind, or an unknown id. */
function concretePath(path: string, r: MatrixResources): { path: string; resource: boolean } {
  const id = path.startsWith('/policies/')
    ? r.policyId
    : path.startsWith('/connectors/')
      ? r.connectorId
      : path.startsWith('/audit/') && path !== '/audit/export'
        ? r.auditId
        : path.startsWith('/tenants/')
          ? 'acme'
          : undefined;
  const filled = path.replace(/\{[^}]+\}/g, id ?? 'unknown-id-000');
  return { path: filled, resource: id !== undefined && path.includes('{') };
}

/**
 * The body a mutation is sent: a valid one where the resource check comes after validation (so
 * the matrix reaches it), else an empty object (a 400 once past the role check).
 */
function bodyFor(method: string, path: string): unknown {
  if (method === 'PUT' && path === '/policies/{id}')
    return { content: 'enabled: true\nmax_classification_shared: internal\n', changeReason: 'matrix' };
  if (method === 'PATCH' && path === '/connectors/{id}') return { config: { matrix: true } };
  return {};
}

/** What the stored state looks like from outside (reads that write nothing but data_access entries). */
async function snapshot(call: (path: string, init?: CallInit) => Promise<any>): Promise<string> {
  const [policies, connectors, changes, tools] = await Promise.all([
    call('/policies', { as: 'enterpriseAdmin' }),
    call('/connectors', { as: 'enterpriseAdmin' }),
    call('/audit?actionType=policy_change&page_size=1000', { as: 'enterpriseAdmin' }),
    call('/audit?actionType=tool_invocation&page_size=1000', { as: 'enterpriseAdmin' }),
  ]);
  return JSON.stringify([policies.body, connectors.body, changes.body?.total, tools.body?.total]);
}

export function describeAccessMatrix(name: string, startServer: ServerFactory): void {
  describe(`access matrix from the route table: ${name}`, () => {
    let idp: TestIssuer;
    let gov: Governance;
    let server: StartedServer;
    const tokens = {} as Record<Who, string>;
    const resources = {} as MatrixResources;
    const call = (path: string, init: CallInit = {}) => callApi(server.url, tokens, path, init);

    beforeAll(async () => {
      idp = await startTestIssuer();
      gov = await createTestService(idp, { kernel: { limits: { rateLimits: UNLIMITED_RATE_LIMITS } } });
      server = await startServer(gov);
      for (const [who, account] of Object.entries(ACCOUNTS))
        tokens[who as Who] = await idp.signIdToken(account);
      // everyone once, so the org directory knows where they sit
      for (const who of Object.keys(ACCOUNTS) as Who[]) await call('/auth/userinfo', { as: who });
      const policy = await call('/policies', {
        as: 'enterpriseAdmin',
        method: 'POST',
        body: policyBody({ scope: 'org', scopeId: 'eng', name: 'eng policy' }),
      });
      expect(policy.status, policy.text).toBe(201);
      resources.policyId = policy.body.id;
      const connector = await call('/connectors', {
        as: 'orgAdmin',
        method: 'POST',
        body: { type: 'calendar', credentials_secret_ref: 'cal', config: {} },
      });
      expect(connector.status, connector.text).toBe(201);
      resources.connectorId = connector.body.id;
      await call('/audit?page_size=1', { as: 'user' }); // writes alice's data_access entry
      const own = await call('/audit?page_size=1', { as: 'user' });
      resources.auditId = own.body.entries[0]?.id;
      expect(resources.auditId).toBeTruthy();
    }, 60_000);

    afterAll(async () => {
      await server?.close();
      await gov?.close();
      await idp?.close();
    });

    it('every route × role × tenant × org unit answers as the route table says; refusals change nothing', async () => {
      const rows: string[] = [];
      let checked = 0;
      for (const { route } of gov.routes) {
        // own auth: HMAC (webhooks), login (auth), MCP bearer access tokens for its resource (mcp)
        if (route.path.startsWith('/webhooks/') || route.path.startsWith('/auth/') || route.path === '/mcp')
          continue;
        const { path, resource } = concretePath(route.path, resources);
        const mutation = route.method !== 'GET';
        for (const caller of CALLERS) {
          const before = mutation ? await snapshot(call) : '';
          const r = await call(path, {
            ...(caller === 'anonymous' ? {} : { as: caller }),
            method: route.method,
            ...(route.body ? { body: bodyFor(route.method, route.path) } : {}),
          });
          const role = roleOf(caller);
          const where = `${route.method} ${route.path} as ${caller} → ${r.status} ${r.text.slice(0, 120)}`;
          rows.push(where);
          checked++;
          expect(r.status, where).toBeLessThan(500);
          if (route.auth === 'none') {
            expect([401, 403], where).not.toContain(r.status);
          } else if (caller === 'anonymous') {
            expect(r.status, where).toBe(401);
          } else if (route.roles && !route.roles.includes(role as never)) {
            expect(r.status, where).toBe(403);
            expect(r.body?.error, where).toBe('forbidden');
          } else if (resource && caller === 'otherTenantAdmin') {
            expect(r.status, where).toBe(404);
          } else if (resource && otherOrg(caller) && /^\/(policies|audit)\//.test(route.path)) {
            expect([403, 404], where).toContain(r.status);
            if (route.method === 'GET') expect(r.status, where).toBe(404);
          } else if (mutation && route.body) {
            // past the role check: the body's validation, the scope check, or done
            const unknownId = !resource && route.path.includes('{');
            expect(unknownId ? [400, 403, 404] : [200, 201, 400, 403], where).toContain(r.status);
          }
          if (r.status >= 400) {
            expect(typeof r.body?.error, where).toBe('string');
            if (mutation) expect(await snapshot(call), where).toBe(before);
          }
        }
      }
      expect(checked).toBeGreaterThan(100);
      console.info(`access matrix (${name}): ${checked} route × caller cells checked`);
    }, 240_000);
  });
}
