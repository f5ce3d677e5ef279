/**
 * `POST /decisions` for every decision domain: the body schema (and so the OpenAPI document)
 * names all six domains, the handler decides and audits through `decisionAuditEntry` (with the
 * policies' ids), an unknown user is a deny, and malformed input never reaches the engine.
 */
import {
  type Decision,
  DecisionRequestSchema,
  InMemoryAuditSink,
  InMemoryOrgDirectory,
  InMemoryPolicyStore,
} from '@agentgov/core';
import { makePolicy } from '@agentgov/core/testing';
import { createTestGovernance, OFFLINE_ISSUER } from '@agentgov/gateway/testing';
import { ok } from 'neverthrow';
import { describe, expect, it, vi } from 'vitest';
import { DecisionBodySchema, policyRoutes } from '../src/gateway/index';

function setup() {
  const store = new InMemoryPolicyStore();
  const directory = InMemoryOrgDirectory.fromDefinitions({
    tenant: 'acme',
    orgs: { eng: { users: ['alice'] } },
  });
  const audit = new InMemoryAuditSink();
  const plugin = policyRoutes({ store, directory, audit });
  const route = plugin.routes.find((r) => r.path === '/decisions' && r.method === 'POST');
  if (!route) throw new Error('no POST /decisions');
  const call = (body: unknown, userId = 'alice') =>
    (route.handler as (i: { body: unknown }, rc: unknown) => Promise<{ status: number; body: Decision }>)(
      { body: DecisionBodySchema.parse(body) },
      {
        principal: { tenantId: 'acme', userId, roles: ['user'] },
        requestId: 'req-1',
        signal: AbortSignal.timeout(5_000),
      },
    );
  return { store, directory, audit, plugin, call };
}

describe('POST /decisions', () => {
  it('accepts every decision domain and rejects unknown domains and malformed input', () => {
    for (const body of [
      { domain: 'models', input: { provider: 'azure', model: 'gpt-4o', classification_level: 'internal' } },
      { domain: 'actions', input: { tool: 'send_mail' } },
      { domain: 'data', input: { classification_level: 'public', destination: 'partner' } },
      { domain: 'features', input: { feature: 'briefings' } },
    ]) {
      expect(DecisionBodySchema.safeParse(body).success, body.domain).toBe(true);
    }
    expect(DecisionBodySchema.safeParse({ domain: 'weather', input: {} }).success).toBe(false);
    expect(DecisionBodySchema.safeParse({ domain: 'features', input: { feature: 'teleport' } }).success).toBe(
      false,
    );
  });

  it('is documented for all six domains in the OpenAPI document', () => {
    const { plugin } = setup();
    const gov = createTestGovernance(OFFLINE_ISSUER, { plugins: [plugin] });
    const text = JSON.stringify(gov.openapi);
    for (const d of ['agent-to-agent', 'integrations', 'models', 'actions', 'data', 'features']) {
      expect(text).toContain(`"${d}"`);
    }
    expect(text).toContain('sensitive_data_models');
    expect(text).toContain('autonomy');
  });

  it('decides and audits a new-domain decision with the ids of its policies; an unknown user is denied', async () => {
    const { store, audit, call } = setup();
    const p = makePolicy({
      tenantId: 'acme',
      scope: 'enterprise',
      scopeId: 'acme',
      domain: 'actions',
      content: 'default_autonomy: approve\n',
      status: 'active',
    });
    await store.insert(p);
    const r = await call({ domain: 'actions', input: { tool: 'send_mail' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ allow: true, constraints: { autonomy: 'approve' }, policyIds: [p.id] });
    const unknown = await call({ domain: 'actions', input: { tool: 'send_mail' } }, 'mallory');
    expect(unknown.body.allow).toBe(false);
    const entries = audit.entries;
    expect(entries.map((e) => [e.userId, e.policyApplied, e.policyResult, e.outcome])).toEqual([
      ['alice', p.id, 'require_approval', 'pending_approval'],
      ['mallory', 'builtin:actions', 'deny', 'denied'],
    ]);
  });

  it('parses the body once: the engine takes the request the route built from it', async () => {
    const { call } = setup();
    const parse = vi.spyOn(DecisionRequestSchema, 'safeParse');
    try {
      const r = await call({ domain: 'features', input: { feature: 'briefings' } });
      expect(r.status).toBe(200);
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
  });

  it('still refuses a request whose caller ids the engine does not accept', async () => {
    const { call } = setup();
    // A principal id longer than a DecisionRequest allows: the engine's full check names it.
    await expect(
      call({ domain: 'features', input: { feature: 'briefings' } }, 'u'.repeat(256)),
    ).rejects.toMatchObject({
      code: 'invalid_type',
      field: 'userId',
    });
  });

  it('hands the engine the request signal, made only when the engine reads it', async () => {
    const store = new InMemoryPolicyStore();
    const directory = InMemoryOrgDirectory.fromDefinitions({
      tenant: 'acme',
      orgs: { eng: { users: ['alice'] } },
    });
    const signal = new AbortController().signal;
    const seen: (AbortSignal | undefined)[] = [];
    const reading = policyRoutes({
      store,
      directory,
      audit: new InMemoryAuditSink(),
      engine: {
        name: 'reading',
        health: async () => true,
        async decide(_request, options) {
          seen.push(options?.signal);
          return ok({ allow: false, deny: true, reason: 'test', constraints: {} });
        },
      },
    });
    const builtin = policyRoutes({ store, directory, audit: new InMemoryAuditSink() });
    let reads = 0;
    const rc = {
      principal: { tenantId: 'acme', userId: 'alice', roles: ['user'] },
      requestId: 'req-1',
      get signal() {
        reads++;
        return signal;
      },
    };
    const handlerOf = (plugin: typeof builtin) =>
      plugin.routes.find((r) => r.path === '/decisions')?.handler as (
        i: { body: unknown },
        rc: unknown,
      ) => Promise<unknown>;
    const body = DecisionBodySchema.parse({ domain: 'features', input: { feature: 'briefings' } });
    await handlerOf(builtin)({ body }, rc);
    expect(reads).toBe(0);
    await handlerOf(reading)({ body }, rc);
    expect(seen).toEqual([signal]);
    expect(reads).toBe(1);
  });
});
