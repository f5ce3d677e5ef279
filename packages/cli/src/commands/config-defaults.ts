/**
 * What `agentgov config print` fills in for a GovernanceServer beyond the settings' own defaults:
 * relative paths from the environment resolved against the working directory (as the server
 * resolves them), the default data directory as a path, and the defaults the reference server
 * derives from other settings (docs/configuration.md's table) — the OIDC client, redirect URI and
 * scopes, the webhook tenant of the development issuer, the client-certificate mode and internal
 * paths of HTTPS, the MCP resource, the name checked in a backing service's certificate. Left out:
 * what is known only once the server runs (the development issuer's URL; with `PORT=0`, the port
 * bound and what follows from it).
 */
import path from 'node:path';
import {
  browserHost,
  DEFAULT_INTERNAL_PATHS,
  DEFAULT_OIDC_SCOPES,
  DEV_OIDC_CLIENT,
  DEV_OIDC_SCOPES,
  DEV_WEBHOOK_TENANT,
  GOVERNANCE_SERVER_TABLE,
  type SettingEntry,
  type SettingValues,
} from '@agentgov/core';

const byEnv = new Map(GOVERNANCE_SERVER_TABLE.map((entry) => [entry.env, entry]));
const entry = (variable: string): SettingEntry => {
  const found = byEnv.get(variable);
  if (!found) throw new Error(`no setting for ${variable}`);
  return found;
};

/**
 * The effective values: the file's (paths already resolved against it) under the environment's
 * (relative paths resolved against `cwd`), then every default that follows from them.
 */
export function effectiveValues(fromFile: SettingValues, fromEnv: SettingValues, cwd: string): SettingValues {
  const values: SettingValues = new Map(fromFile);
  for (const [setting, value] of fromEnv)
    values.set(setting, setting.path && typeof value === 'string' ? path.resolve(cwd, value) : value);
  const get = (variable: string): unknown => values.get(entry(variable));
  const fill = (variable: string, value: unknown) => {
    if (value !== undefined && !values.has(entry(variable))) values.set(entry(variable), value);
  };
  // Path defaults (`./.agentgov`) as the path they are.
  for (const setting of GOVERNANCE_SERVER_TABLE)
    if (setting.path && typeof setting.default === 'string' && !values.has(setting))
      values.set(setting, path.resolve(cwd, setting.default));

  const devIssuer = get('OIDC_ISSUER') === undefined;
  if (devIssuer) {
    fill('OIDC_CLIENT_ID', DEV_OIDC_CLIENT.clientId);
    fill('OIDC_CLIENT_SECRET', DEV_OIDC_CLIENT.clientSecret); // printed masked, as every secret
    fill('AGENTGOV_WEBHOOK_TENANT', DEV_WEBHOOK_TENANT);
  }
  fill('OIDC_SCOPES', devIssuer ? DEV_OIDC_SCOPES : DEFAULT_OIDC_SCOPES);
  const https = get('AGENTGOV_TLS_CERT') !== undefined;
  const port = (get('PORT') ?? entry('PORT').default) as number;
  const host = (get('HOST') ?? entry('HOST').default) as string;
  const origin = port === 0 ? undefined : `${https ? 'https' : 'http'}://${browserHost(host)}:${port}`;
  if (origin) fill('OIDC_REDIRECT_URI', `${origin}/api/v1/auth/callback`);
  if (https) {
    fill('AGENTGOV_TLS_CLIENT_AUTH', get('AGENTGOV_TLS_CLIENT_CA') === undefined ? 'off' : 'optional');
    if (get('AGENTGOV_TLS_CLIENT_AUTH') === 'optional')
      fill('AGENTGOV_TLS_INTERNAL_PATHS', [...DEFAULT_INTERNAL_PATHS]);
  }
  if (origin && get('AGENTGOV_MCP_CONFIG') !== undefined)
    fill('AGENTGOV_MCP_RESOURCE', `${origin}/api/v1/mcp`);
  // TLS to a backing service checks the name in its certificate: the URL's host unless set.
  for (const [service, url] of [
    ['DATABASE', 'DATABASE_URL'],
    ['REDIS', 'REDIS_URL'],
    ['OPA', 'OPA_URL'],
  ] as const) {
    const tls = ['CA', 'CERT', 'KEY'].some((part) => get(`${service}_TLS_${part}`) !== undefined);
    const target = get(url);
    if (tls && typeof target === 'string' && URL.canParse(target))
      fill(`${service}_TLS_SERVERNAME`, new URL(target).hostname || undefined);
  }
  return values;
}
