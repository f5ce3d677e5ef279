/**
 * Which connectors make a tenant's integrations: a connector whose pulls fail (`error`) is still the
 * tenant's configured one — its webhooks are taken, or they would be recorded as processed and lost
 * — and only a `disabled` one is off.
 */
import {
  type Connector,
  GovernanceError,
  InMemoryAuditSink,
  InMemoryConnectorStore,
  InMemorySecretStore,
  InMemoryWorkTrackingStore,
  type Logger,
} from '@agentgov/core';
import { describe, expect, it } from 'vitest';
import { connectorIntegrations } from '../src/integrations';
import { signBody } from '../src/signature';
import { WebhookService } from '../src/webhooks';
import { Rule7Engine } from './helpers';

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

  // Found by a black-box probe: a code host stored with `users: "octocat"` (before configs were
  // checked on write) was skipped, and every correctly signed delivery got 401
  // invalid_webhook_secret — the wrong reason, and nothing logged.
  it('a stored config that cannot be read: a signed delivery is 503 saying what is wrong (logged), an unsigned one still 401', async () => {
    const store = new InMemoryConnectorStore();
    const bad = connector({ config: { webhookSecretRef: 'gh-webhook', users: 'octocat' } });
    await store.insert(bad);
    const logged: [string, Record<string, unknown> | undefined][] = [];
    const log = (m: string, f?: Record<string, unknown>) => {
      logged.push([m, f]);
    };
    const logger: Logger = { debug: () => {}, info: log, warn: log, error: log };
    const webhooks = new WebhookService({
      store: new InMemoryWorkTrackingStore(),
      secrets: new InMemorySecretStore({ 'gh-webhook': 'hook-secret' }),
      integrations: connectorIntegrations(store),
      engine: new Rule7Engine(),
      audit: new InMemoryAuditSink(),
      logger,
    });
    const payload = { zen: 'hi', hook_id: 1 };
    const rawBody = new TextEncoder().encode(JSON.stringify(payload));
    const send = (secret: string) =>
      webhooks
        .receive('codehost', {
          tenantId: 'acme',
          headers: new Headers({
            'content-type': 'application/json',
            'x-github-event': 'ping',
            'x-hub-signature-256': signBody(secret, rawBody),
          }),
          rawBody,
          payload,
          requestId: 'r',
        })
        .then(
          () => undefined,
          (e: unknown) => e as GovernanceError,
        );
    const signed = await send('hook-secret');
    expect(signed).toBeInstanceOf(GovernanceError);
    expect([signed?.status, signed?.code]).toEqual([503, 'service_unavailable']);
    expect(signed?.message).toContain(`codehost connector ${bad.id}`);
    expect(signed?.message).toContain('users: Invalid input: expected record');
    expect(logged).toContainEqual([
      'webhook refused: the connector config cannot be read',
      expect.objectContaining({
        tenantId: 'acme',
        connectorId: bad.id,
        issues: expect.stringContaining('users'),
      }),
    ]);
    const unsigned = await send('not-the-secret');
    expect([unsigned?.status, unsigned?.code]).toEqual([401, 'invalid_webhook_secret']);
    // Fixed, the same delivery is taken.
    await store.update({ ...bad, config: { webhookSecretRef: 'gh-webhook', users: { octocat: 'alice' } } });
    expect(await send('hook-secret')).toBeUndefined();
  });
});
