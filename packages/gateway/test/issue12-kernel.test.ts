/**
 * Issue 12, kernel routes: a connector write and its audit entry commit together (item 2), and
 * `/status` no longer lists other tenants' connector types (item 6).
 */
import {
  type AuditSink,
  type AuditStore,
  auditedTransactions,
  err,
  GovernanceError,
  InMemoryAuditStore,
  InMemoryConnectorStore,
  InMemoryInstanceRegistry,
  InMemoryOrgDirectory,
  InMemoryPolicyStore,
  InMemorySessionStore,
  InMemoryTenantStore,
  InMemoryUnitOfWork,
  ok,
} from '@agentgov/core';
import { appendEntries, makeAuditEntry } from '@agentgov/core/testing';
import { describe, expect, it } from 'vitest';
import type { Governance } from '../src/index';
import { createTestGovernance } from '../src/testing/index';
import { fileIssuer } from './issuer';

const idp = await fileIssuer();

const call = (gov: Governance, path: string, token?: string, init: RequestInit = {}) =>
  gov.handle(
    new Request(`http://gw/api/v1${path}`, {
      ...init,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(init.body ? { 'content-type': 'application/json' } : {}),
      },
    }),
  );

function transactional(refuse: { on: boolean }) {
  const stores = {
    sessions: new InMemorySessionStore(),
    tenants: new InMemoryTenantStore(),
    connectors: new InMemoryConnectorStore(),
    instances: new InMemoryInstanceRegistry(),
  };
  const audit = new InMemoryAuditStore();
  const sinkOver = (store: AuditStore): AuditSink => ({
    async append(input) {
      const entry = makeAuditEntry({ ...input, timestamp: new Date().toISOString() });
      await appendEntries(store, input.tenantId, [entry]);
      return refuse.on ? err(new GovernanceError('service_unavailable', 'audit refused')) : ok(entry);
    },
  });
  const uow = new InMemoryUnitOfWork({
    policies: new InMemoryPolicyStore(),
    audit,
    connectors: stores.connectors,
    tenants: stores.tenants,
    directory: new InMemoryOrgDirectory(),
  });
  const gov = createTestGovernance(idp, {
    stores,
    audit: sinkOver(audit),
    transaction: auditedTransactions(uow, sinkOver),
  });
  return { gov, stores, audit };
}

const connectorBody = JSON.stringify({ type: 'calendar', credentials_secret_ref: 'cal-1', config: {} });

describe('connector writes and their audit entries (issue 12 item 2)', () => {
  it('an audit failure after the insert leaves no connector behind (503)', async () => {
    const refuse = { on: true };
    const { gov, stores, audit } = transactional(refuse);
    try {
      const admin = await idp.signIdToken({ sub: 'ea', roles: ['enterprise_admin'], tenant_id: 't' });
      const r = await call(gov, '/connectors', admin, { method: 'POST', body: connectorBody });
      expect(r.status).toBe(503);
      expect(await stores.connectors.list('t')).toEqual([]);
      expect(await audit.count('t')).toBe(0);
      refuse.on = false;
      const created = await call(gov, '/connectors', admin, { method: 'POST', body: connectorBody });
      expect(created.status).toBe(201);
      const { id } = await created.json();
      refuse.on = true;
      expect((await call(gov, `/connectors/${id}`, admin, { method: 'DELETE' })).status).toBe(503);
      expect((await stores.connectors.get('t', id))?.status).toBe('active');
      expect(await audit.count('t')).toBe(1);
    } finally {
      await gov.close();
    }
  });
});

describe('/status and connectors of other tenants (issue 12 item 6)', () => {
  it('anonymous callers see no connector types; an authenticated caller sees only its own tenant', async () => {
    const gov = createTestGovernance(idp);
    try {
      const other = await idp.signIdToken({ sub: 'eb', roles: ['enterprise_admin'], tenant_id: 'other' });
      const mine = await idp.signIdToken({ sub: 'ea', roles: ['enterprise_admin'], tenant_id: 'mine' });
      const post = await call(gov, '/connectors', other, { method: 'POST', body: connectorBody });
      expect(post.status).toBe(201);
      expect((await (await call(gov, '/status')).json()).components.connectors).toEqual({});
      expect((await (await call(gov, '/status', mine)).json()).components.connectors).toEqual({});
      expect((await (await call(gov, '/status', other)).json()).components.connectors).toHaveProperty(
        'calendar',
      );
    } finally {
      await gov.close();
    }
  });
});

describe('an activity tracker that is away (Redis down)', () => {
  it('does not turn authenticated requests into 503s', async () => {
    const down = async (): Promise<never> => {
      throw new Error('ECONNREFUSED 127.0.0.1:6379');
    };
    const gov = createTestGovernance(idp, { activity: { touch: down, countActive: down } as never });
    try {
      const admin = await idp.signIdToken({ sub: 'ea', roles: ['enterprise_admin'], tenant_id: 't' });
      expect((await call(gov, '/tenants', admin)).status).toBe(200);
    } finally {
      await gov.close();
    }
  });
});
