import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type AgentToAgentInput,
  InMemoryAuditSink,
  InMemoryOrgDirectory,
  InMemoryPolicyStore,
  ManualClock,
} from '@agentgov/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  BuiltinDecisionEngine,
  EffectivePolicyResolver,
  OpaDecisionEngine,
  PolicyService,
} from '../src/index';

const input: AgentToAgentInput = {
  exchange_type: 'meeting_scheduling',
  initiator_tenant_id: 'acme',
  responder_tenant_id: 'acme',
  initiator_org_unit: 'eng',
  responder_org_unit: 'eng',
  classification_level: 'internal',
};
const admin = { userId: 'root', tenantId: 'acme', roles: ['enterprise_admin'] as const };

describe('built-in engine over store + directory', () => {
  const setup = () => {
    const store = new InMemoryPolicyStore();
    const directory = InMemoryOrgDirectory.fromDefinitions({
      tenant: 'acme',
      orgs: { eng: { teams: { platform: ['alice'] } } },
    });
    const resolver = new EffectivePolicyResolver({ store, directory });
    const service = new PolicyService({
      store,
      directory,
      audit: new InMemoryAuditSink(),
      clock: new ManualClock('2025-01-01T00:00:00Z'),
      onChange: (t) => resolver.invalidate(t),
    });
    return { store, resolver, service, engine: new BuiltinDecisionEngine(resolver) };
  };
  const body = (scope: string, scopeId: string, content: string) => ({
    scope,
    scopeId,
    domain: 'agent-to-agent',
    name: `${scope} ${scopeId}`,
    version: '1.0.0',
    content,
    changeReason: 'test',
  });

  it('denies by default with no policy', async () => {
    const { engine } = setup();
    const d = (
      await engine.decide({ domain: 'agent-to-agent', tenantId: 'acme', scope: 'enterprise', input })
    )._unsafeUnwrap();
    expect(d.allow).toBe(false);
  });

  it('decides on the effective policy of the user and sees writes at once (cache invalidation)', async () => {
    const { service, engine, resolver } = setup();
    (
      await service.create(
        admin,
        body('enterprise', 'acme', 'enabled: true\nmax_rounds: {meeting_scheduling: 2}'),
      )
    )._unsafeUnwrap();
    const req = { domain: 'agent-to-agent' as const, tenantId: 'acme', userId: 'alice', input };
    expect((await engine.decide(req))._unsafeUnwrap()).toMatchObject({
      allow: true,
      constraints: { max_rounds: 2 },
    });
    expect(resolver.peek('acme', 'agent-to-agent', { scope: 'user', scopeId: 'alice' })).toBeDefined();
    (
      await service.create(admin, body('team', 'platform', 'max_rounds: {meeting_scheduling: 1}'))
    )._unsafeUnwrap();
    expect((await engine.decide(req))._unsafeUnwrap().constraints.max_rounds).toBe(1);
    // the enterprise itself is not affected by the team policy
    const { userId: _, ...enterprise } = req;
    expect(
      (await engine.decide({ ...enterprise, scope: 'enterprise' }))._unsafeUnwrap().constraints.max_rounds,
    ).toBe(2);
    // Omitting the user is not a way to the enterprise answer (issue 23, item 11): it is an error.
    expect((await engine.decide(enterprise))._unsafeUnwrapErr()).toMatchObject({
      code: 'missing_type',
      field: 'userId',
    });
  });

  it('sees writes made by another process (same store, no invalidation) once maxAgeMs has passed', async () => {
    const store = new InMemoryPolicyStore();
    const directory = InMemoryOrgDirectory.fromDefinitions({ tenant: 'acme', orgs: { eng: { teams: {} } } });
    // "Another process": a service whose writes do not reach this resolver.
    const other = new PolicyService({ store, directory, audit: new InMemoryAuditSink() });
    const resolver = new EffectivePolicyResolver({ store, directory, maxAgeMs: 1_000 });
    const engine = new BuiltinDecisionEngine(resolver);
    const req = { domain: 'agent-to-agent' as const, tenantId: 'acme', scope: 'enterprise' as const, input };
    expect((await engine.decide(req))._unsafeUnwrap().allow).toBe(false);
    (await other.create(admin, body('enterprise', 'acme', 'enabled: true')))._unsafeUnwrap();
    // Still the cached (stale) answer right after the foreign write…
    expect((await engine.decide(req))._unsafeUnwrap().allow).toBe(false);
    await new Promise((r) => setTimeout(r, 1_100));
    // …and the new policy once the cache entry has aged out.
    expect((await engine.decide(req))._unsafeUnwrap().allow).toBe(true);
  });

  it('denies cross-tenant inputs whatever the policy says, without reading the store', async () => {
    const { service, engine } = setup();
    (
      await service.create(
        admin,
        body('enterprise', 'acme', 'enabled: true\nmax_classification_shared: restricted'),
      )
    )._unsafeUnwrap();
    const d = await engine.decide({
      domain: 'agent-to-agent',
      tenantId: 'acme',
      userId: 'alice',
      input: { ...input, responder_tenant_id: 'globex' },
    });
    expect(d._unsafeUnwrap()).toMatchObject({
      allow: false,
      deny: true,
      reason: 'cross-tenant exchange is always blocked',
    });
  });

  it('fails closed as POLICY_ENGINE_UNREACHABLE when the store throws, and denies on corrupt content', async () => {
    const { store, resolver } = setup();
    // fault injection: the real in-memory store, with list() failing like a database that is down
    class DownStore extends InMemoryPolicyStore {
      override async list(): Promise<never> {
        throw new Error('db down');
      }
    }
    const broken = new EffectivePolicyResolver({
      store: new DownStore(),
      directory: new InMemoryOrgDirectory(),
    });
    const e = await new BuiltinDecisionEngine(broken).decide({
      domain: 'agent-to-agent',
      tenantId: 'acme',
      scope: 'enterprise',
      input,
    });
    expect(e._unsafeUnwrapErr().code).toBe('POLICY_ENGINE_UNREACHABLE');
    await store.insert({
      id: '00000000-0000-4000-8000-000000000001',
      tenantId: 'acme',
      scope: 'enterprise',
      scopeId: 'acme',
      domain: 'agent-to-agent',
      name: 'corrupt',
      version: '1.0.0',
      content: 'enabled: [',
      status: 'active',
      createdBy: 'x',
      createdAt: '2025-01-01T00:00:00.000Z',
      updatedAt: '2025-01-01T00:00:00.000Z',
      changeReason: 'x',
    });
    resolver.invalidate();
    const d = await new BuiltinDecisionEngine(resolver).decide({
      domain: 'agent-to-agent',
      tenantId: 'acme',
      scope: 'enterprise',
      input,
    });
    expect(d._unsafeUnwrap()).toMatchObject({ allow: false, deny: true });
  });
});

// ---------------------------------------------------------------------------------------------
// OPA sidecar: no OPA build can be installed here, so a loopback node:http server speaks the
// REST Data API (POST /v1/data/<path> {input} → {result}; GET /health).

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;
describe('OPA sidecar engine (loopback server speaking the OPA REST Data API)', () => {
  let server: Server;
  let url: string;
  let handler: Handler;
  const seen: Array<{ method?: string; url?: string; body: string }> = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, body });
        handler(req, body, res);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => {
    seen.length = 0;
  });

  const json = (res: ServerResponse, status: number, value: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
  };
  const req = { domain: 'agent-to-agent' as const, tenantId: 'acme', userId: 'alice', input };

  it('posts {input} to /v1/data/<path> and maps {result} to a decision', async () => {
    handler = (_req, _body, res) =>
      json(res, 200, {
        result: {
          allow: true,
          reason: 'ok by rego',
          constraints: { max_rounds: 2, max_classification_shared: 'internal' },
        },
      });
    const d = await new OpaDecisionEngine({ url }).decide(req);
    expect(d._unsafeUnwrap()).toEqual({
      allow: true,
      deny: false,
      reason: 'ok by rego',
      constraints: { max_rounds: 2, max_classification_shared: 'internal' },
    });
    expect(seen[0]?.method).toBe('POST');
    expect(seen[0]?.url).toBe('/v1/data/agentgov/agent_to_agent/decision');
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({
      input: { ...input, tenant_id: 'acme', user_id: 'alice' },
    });
  });

  it('uses the configured path per domain; deny wins over allow', async () => {
    handler = (_req, _body, res) => json(res, 200, { result: { allow: true, deny: true } });
    const engine = new OpaDecisionEngine({ url: `${url}/`, paths: { integrations: 'custom/integrations' } });
    const d = await engine.decide({
      domain: 'integrations',
      tenantId: 'acme',
      scope: 'enterprise',
      input: { action: 'tracker_update', context: { targetSystem: 'tracker', additional: {} } },
    });
    expect(seen[0]?.url).toBe('/v1/data/custom/integrations');
    expect(d._unsafeUnwrap()).toMatchObject({ allow: false, deny: true, reason: 'denied by OPA' });
  });

  it('never asks OPA without a user unless the enterprise level is asked explicitly', async () => {
    handler = (_req, _body, res) => json(res, 200, { result: { allow: true } });
    const engine = new OpaDecisionEngine({ url });
    const actions = { domain: 'actions' as const, tenantId: 'acme', input: { tool: 'send_mail' } };
    const omitted = await engine.decide(actions);
    expect(omitted._unsafeUnwrapErr()).toMatchObject({ code: 'missing_type', field: 'userId' });
    expect(seen).toEqual([]);
    expect((await engine.decide({ ...actions, scope: 'enterprise' }))._unsafeUnwrap().allow).toBe(true);
    // The enterprise level is sent without user_id; a user's request carries it.
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({ input: { tool: 'send_mail', tenant_id: 'acme' } });
    await engine.decide({ ...actions, userId: 'alice' });
    expect(JSON.parse(seen[1]?.body ?? '')).toEqual({
      input: { tool: 'send_mail', tenant_id: 'acme', user_id: 'alice' },
    });
  });

  it('never asks OPA about cross-tenant inputs', async () => {
    handler = (_req, _body, res) => json(res, 200, { result: { allow: true } });
    const d = await new OpaDecisionEngine({ url }).decide({
      ...req,
      input: { ...input, responder_tenant_id: 'globex' },
    });
    expect(d._unsafeUnwrap().allow).toBe(false);
    expect(seen).toHaveLength(0);
  });

  const unreachable = async (h: Handler, options: { timeoutMs?: number } = {}) => {
    handler = h;
    const d = await new OpaDecisionEngine({ url, ...options }).decide(req);
    expect(d.isErr()).toBe(true);
    const e = d._unsafeUnwrapErr();
    expect(e.code).toBe('POLICY_ENGINE_UNREACHABLE');
    return e.message;
  };

  it('fails closed on a slow answer (timeout)', async () => {
    const msg = await unreachable(
      (_r, _b, res) => {
        setTimeout(() => json(res, 200, { result: { allow: true } }), 500);
      },
      { timeoutMs: 50 },
    );
    expect(msg).toContain('timed out after 50 ms');
  });
  it('fails closed on a non-2xx answer', async () => {
    expect(await unreachable((_r, _b, res) => json(res, 500, { code: 'internal_error' }))).toContain(
      'HTTP 500',
    );
  });
  it('fails closed on malformed JSON', async () => {
    expect(
      await unreachable((_r, _b, res) => {
        res.writeHead(200).end('{"result": {"allow": tru');
      }),
    ).toContain('malformed JSON');
  });
  it('fails closed on an undefined document (no result)', async () => {
    expect(await unreachable((_r, _b, res) => json(res, 200, {}))).toContain('no result');
  });
  it('fails closed on a wrong-shaped result', async () => {
    expect(await unreachable((_r, _b, res) => json(res, 200, { result: { allow: 'yes' } }))).toContain(
      'not a decision',
    );
    await unreachable((_r, _b, res) => json(res, 200, { result: true }));
    await unreachable((_r, _b, res) =>
      json(res, 200, { result: { allow: true, constraints: { max_classification_shared: 'top-secret' } } }),
    );
  });
  it('fails closed on an oversized answer', async () => {
    expect(
      await unreachable((_r, _b, res) =>
        json(res, 200, { result: { allow: true, reason: 'x'.repeat(70_000) } }),
      ),
    ).toContain('exceeds');
  });
  it('fails closed when nothing listens', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const d = await new OpaDecisionEngine({ url: `http://127.0.0.1:${port}` }).decide(req);
    expect(d._unsafeUnwrapErr().code).toBe('POLICY_ENGINE_UNREACHABLE');
    expect(await new OpaDecisionEngine({ url: `http://127.0.0.1:${port}` }).health()).toBe(false);
  });
  it('reports health from GET /health', async () => {
    handler = (r, _b, res) => (r.url === '/health' ? json(res, 200, {}) : json(res, 404, {}));
    expect(await new OpaDecisionEngine({ url }).health()).toBe(true);
    expect(seen[0]).toMatchObject({ method: 'GET', url: '/health' });
    handler = (_r, _b, res) => json(res, 500, {});
    expect(await new OpaDecisionEngine({ url }).health()).toBe(false);
    handler = (_r, _b, res) => {
      setTimeout(() => json(res, 200, {}), 300);
    };
    expect(await new OpaDecisionEngine({ url, timeoutMs: 30 }).health()).toBe(false);
  });
});
