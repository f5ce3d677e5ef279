/** Webhook secret rotation: the previous secret is accepted until its validity ends, then refused. */
import { applyConnectorPatch, InMemorySecretStore, ManualClock } from '@agentgov/core';
import { makeConnector } from '@agentgov/core/testing';
import { describe, expect, it } from 'vitest';
import { webhookSecrets } from '../src/integrations';

describe('webhookSecrets during a rotation', () => {
  it('takes the current and the previous secret until webhookRotationEndsAt, then only the current', async () => {
    const secrets = new InMemorySecretStore({ old: 'old-secret', new: 'new-secret' });
    const clock = new ManualClock('2026-11-26T08:00:00.000Z');
    const before = makeConnector({ type: 'codehost', config: { webhookSecretRef: 'old', users: {} } });
    const rotated = applyConnectorPatch(
      before,
      { webhook_secret_ref: 'new', rotation_window_seconds: 3600 },
      clock.now(),
    );
    expect(rotated.config).toEqual({
      webhookSecretRef: 'new',
      previousWebhookSecretRef: 'old',
      webhookRotationEndsAt: '2026-11-26T09:00:00.000Z',
      users: {},
    });
    const refs = rotated.config as Parameters<typeof webhookSecrets>[1];
    expect(await webhookSecrets(secrets, refs, clock.now())).toEqual(['new-secret', 'old-secret']);
    clock.advance(3_599_999);
    expect(await webhookSecrets(secrets, refs, clock.now())).toEqual(['new-secret', 'old-secret']);
    clock.advance(1);
    expect(await webhookSecrets(secrets, refs, clock.now())).toEqual(['new-secret']);
    // A rotation without a window keeps no previous secret at all.
    const hard = applyConnectorPatch(
      rotated,
      { webhook_secret_ref: 'newer', rotation_window_seconds: 0 },
      clock.now(),
    );
    expect(hard.config).toEqual({ webhookSecretRef: 'newer', users: {} });
  });
});
