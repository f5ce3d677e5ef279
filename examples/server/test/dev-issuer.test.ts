import { executionAsyncResource } from 'node:async_hooks';
import { describe, expect, it, vi } from 'vitest';
import { startDevIssuer } from '../src/dev-issuer';

/**
 * Whether V8's promise hooks are on in this process: with them on (an enabled AsyncLocalStorage
 * on Node 20), a continuation runs with its promise as the current async resource.
 */
async function promiseHooksOn(): Promise<boolean> {
  await null;
  return executionAsyncResource() instanceof Promise;
}

/** Until the issuer's response has closed: at once here, long only when the hooks stay on (a failure). */
const HOOKS_OFF = { timeout: 10_000, interval: 20 };

describe('development issuer', () => {
  it('leaves the promise hooks of its AsyncLocalStorage off once no request of its own is in flight', async () => {
    const issuer = await startDevIssuer({
      clientId: 'dev-client',
      clientSecret: 'dev-secret',
      redirectUri: 'http://127.0.0.1:9/callback',
    });
    try {
      // Nothing else in this process turned them on: what follows is the issuer's doing.
      expect(await promiseHooksOn()).toBe(false);
      const discovery = await fetch(`${issuer.issuer}/.well-known/openid-configuration`);
      expect(discovery.status).toBe(200);
      expect(((await discovery.json()) as { issuer: string }).issuer).toBe(issuer.issuer);
      // oidc-provider served it inside `als.run` (hooks on); they go off when its response closes.
      await vi.waitFor(async () => expect(await promiseHooksOn()).toBe(false), HOOKS_OFF);

      // The storage is enabled again for each later request: a whole code flow still works.
      const code = await issuer.authorizationCode('alice');
      expect(code).toMatch(/^[\w-]{20,}$/);
      await vi.waitFor(async () => expect(await promiseHooksOn()).toBe(false), HOOKS_OFF);
    } finally {
      await issuer.close();
    }
  });
});
