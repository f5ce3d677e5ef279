/**
 * Which connectors make a tenant's integrations: a connector whose pulls fail (`error`) is still the
 * tenant's configured one — its webhooks are taken, or they would be recorded as processed and lost
 * — and only a `disabled` one is off.
 */
import { type Connector, InMemoryConnectorStore } from '@agentgov/core';
import { describe, expect, it } from 'vitest';
import { connectorIntegrations } from '../src/integrations';

const connector = (over: Partial<Connector>): Connector => ({
  id: `c-${Math.random().toString(36).slice(2)}`,
  type: 'codehost',
  tenantId: 'acme',
  userId: null,
  permissions: 'read',
  defaultClassification: 'internal',
  status: 'active',
  credentialsRef: 'codehost-token',
  lastSyncAt: null,
  errorDetails: null,
  config: { webhookSecretRef: 'gh-webhook' },
  createdAt: '2026-11-27T08:00:00.000Z',
  ...over,
});

describe('connectorIntegrations', () => {
  it('a connector in error still takes its webhooks; a disabled one does not; an active one comes first', async () => {
    const store = new InMemoryConnectorStore();
    const resolve = (tenantId: string) => connectorIntegrations(store).resolve(tenantId);
    await store.insert(connector({ status: 'error', errorDetails: 'pull failed 3 times' }));
    expect((await resolve('acme'))?.codehost).toMatchObject({ webhookSecretRef: 'gh-webhook' });

    await store.insert(
      connector({ tenantId: 'globex', status: 'disabled', config: { webhookSecretRef: 'off' } }),
    );
    expect(await resolve('globex')).toBeUndefined();

    await store.insert(
      connector({ tenantId: 'initech', status: 'error', config: { webhookSecretRef: 'failing' } }),
    );
    await store.insert(connector({ tenantId: 'initech', config: { webhookSecretRef: 'working' } }));
    expect((await resolve('initech'))?.codehost).toMatchObject({ webhookSecretRef: 'working' });
  });
});
