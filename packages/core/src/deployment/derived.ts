/**
 * Values the reference server derives when a setting is not given, shared by the server and by
 * `agentgov config print` (which shows them) so the two cannot drift.
 */

/** The development issuer's OIDC client (the server's in-process issuer, when `OIDC_ISSUER` is unset). */
export const DEV_OIDC_CLIENT = { clientId: 'agentgov-dev', clientSecret: 'agentgov-dev-secret' } as const;

/** The scopes a login asks for: of the development issuer, and of any other issuer. */
export const DEV_OIDC_SCOPES = 'openid email agentgov';
export const DEFAULT_OIDC_SCOPES = 'openid email profile';

/** The tenant webhooks are for with the development issuer (its accounts' tenant). */
export const DEV_WEBHOOK_TENANT = 'acme';

/** The paths that need a client certificate under `clientAuth: optional` (the server's default). */
export const DEFAULT_INTERNAL_PATHS: readonly string[] = ['/api/v1/metrics/prometheus'];

/** The host a browser on this machine reaches a server listening on `host` at (not 0.0.0.0 or ::). */
export function browserHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '[::]') return '127.0.0.1';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}
