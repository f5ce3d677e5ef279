/**
 * `kind: GovernanceServer`: the reference server's settings (examples/server), one line per
 * setting — its key under `spec`, its environment variable, the file form and the default. The
 * server reads the environment variables as before; a file's values stand in for the variables
 * that are not set. docs/configuration.md has the table.
 */
import { z } from 'zod';
import { parseNetworks } from '../networks';
import { parsesWith, type SettingsTree, setting, settingsSchema, settingsTable } from './settings';

export const GOVERNANCE_SERVER_KIND = 'GovernanceServer';

const DURATION_UNITS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600 };
/** What a duration setting takes (AGENTGOV_CHECKPOINT_INTERVAL). */
export const DURATION_FORM =
  'expected seconds (60) or a duration such as 500ms, 30s, 1m or 1h, at most 24h; 0: off';
/** Seconds from `60`, `500ms`, `30s`, `1m`, `1.5h`; undefined when it is none of these or over 24 h. */
export function parseDurationSeconds(value: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/.exec(value.trim());
  if (!m) return undefined;
  const seconds = Number(m[1]) * (DURATION_UNITS[m[2] ?? 's'] as number);
  return seconds > 86_400 ? undefined : seconds;
}

const PORT_FORM = 'expected a port number from 0 to 65535 (0: any free port)';
const Port = z.number({ error: PORT_FORM }).int(PORT_FORM).min(0, PORT_FORM).max(65535, PORT_FORM);
const Text = z.string().min(1);
const Url = z.url();
const Duration = z
  .union([z.number().min(0).max(86_400), z.string()], { error: DURATION_FORM })
  .refine((v) => parseDurationSeconds(String(v)) !== undefined, DURATION_FORM);
const DatabaseUrl = z
  .string()
  .regex(/^(postgres(ql)?:\/\/.+|memory:)$/, 'expected postgres://…, postgresql://… or memory:');
/** `redis://…` or `rediss://…` (TLS): what ioredis connects to (an `http://` URL is a mistake, not a Redis). */
export const RedisUrl = z.string().regex(/^rediss?:\/\/./i, 'expected redis://… or rediss://… (TLS)');
const TrustProxy = z.union([z.boolean(), z.number().int().min(0), z.string().regex(/^[0-9A-Za-z.:/,\s]+$/)], {
  error: 'expected true, false, a hop count or addresses and CIDR ranges',
});
const SECRET_OWNERS_FORM = 'expected tenant=ref,ref;tenant=ref (a map of tenant to references in a file)';
/**
 * `acme=acme-jira,acme-hook;globex=globex-token` as {tenant: refs}; throws naming the bad part.
 * A tenant named twice has both lists.
 */
export function parseSecretOwners(text: string): Record<string, string[]> {
  const owners: Record<string, string[]> = {};
  for (const part of text
    .split(';')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const at = part.indexOf('=');
    const tenant = part.slice(0, at).trim();
    const refs = part
      .slice(at + 1)
      .split(',')
      .map((r) => r.trim())
      .filter(Boolean);
    if (at <= 0 || tenant === '' || refs.length === 0) throw new Error(`'${part}': ${SECRET_OWNERS_FORM}`);
    owners[tenant] = [...(owners[tenant] ?? []), ...refs];
  }
  return owners;
}
const SecretOwners = z
  .union([z.string(), z.record(z.string().min(1), z.array(z.string().min(1).max(255)).min(1))], {
    error: SECRET_OWNERS_FORM,
  })
  .refine((v) => typeof v !== 'string' || parsesWith(parseSecretOwners)(v), SECRET_OWNERS_FORM);
const NETWORKS_FORM = 'expected networks in CIDR form, such as 10.0.0.0/8 or fd00::/8';
const Networks = z
  .union([z.string(), z.array(z.string())], { error: NETWORKS_FORM })
  .refine(parsesWith(parseNetworks), NETWORKS_FORM);
/** TLS to a backing service: `<SERVICE>_TLS_CA`, `_CERT`, `_KEY` (PEM files) and `_SERVERNAME`. */
const outgoingTls = (service: string, what: string) => ({
  ca: setting(`${service}_TLS_CA`, Text, `PEM file of the CA that signs ${what}'s certificate.`, {
    path: true,
  }),
  cert: setting(`${service}_TLS_CERT`, Text, `PEM file of the client certificate shown to ${what}.`, {
    path: true,
  }),
  key: setting(`${service}_TLS_KEY`, Text, "PEM file of that certificate's private key.", { path: true }),
  serverName: setting(
    `${service}_TLS_SERVERNAME`,
    Text,
    `The name to verify in ${what}'s certificate, if not the URL's host.`,
  ),
});
const list = {
  toEnv: (v: string[]) => v.join(','),
  fromEnv: (t: string) =>
    t
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean),
};
const flag = (on: string, off: string) => ({
  toEnv: (v: boolean) => (v ? on : off),
  fromEnv: (t: string) => (t === on ? true : t === off ? false : t),
});

export const GOVERNANCE_SERVER_SETTINGS = {
  port: setting('PORT', Port, 'Listen port (0: any free port).', { default: 8080 }),
  host: setting('HOST', Text, 'Listen address.', { default: '127.0.0.1' }),
  framework: setting('AGENTGOV_FRAMEWORK', z.enum(['express', 'koa']), 'HTTP framework.', {
    default: 'express',
  }),
  database: {
    url: setting(
      'DATABASE_URL',
      DatabaseUrl,
      'postgres://… for PostgreSQL, memory: for in-memory; unset: embedded PGlite.',
      { secret: 'url' },
    ),
    dataDir: setting('AGENTGOV_DATA_DIR', Text, 'The embedded PGlite directory.', {
      default: './.agentgov',
      path: true,
    }),
    tls: outgoingTls('DATABASE', 'PostgreSQL'),
  },
  redis: {
    url: setting(
      'REDIS_URL',
      RedisUrl,
      'Redis for rate limits and sessions shared across processes; unset: in-process.',
      { secret: 'url' },
    ),
    tls: outgoingTls('REDIS', 'Redis'),
  },
  opa: {
    url: setting('OPA_URL', Url, 'OPA REST API of a decision engine sidecar; unset: built-in engine.'),
    tls: outgoingTls('OPA', 'OPA'),
  },
  oidc: {
    issuer: setting('OIDC_ISSUER', Url, 'Issuer URL (discovery and JWKS); unset: the development issuer.'),
    clientId: setting('OIDC_CLIENT_ID', Text, 'Client id of the code exchange at /auth/callback.'),
    clientSecret: setting('OIDC_CLIENT_SECRET', Text, 'Client secret of the code exchange.', {
      secret: true,
    }),
    redirectUri: setting(
      'OIDC_REDIRECT_URI',
      Url,
      'Redirect URI; default http://HOST:PORT/api/v1/auth/callback.',
    ),
    scopes: setting('OIDC_SCOPES', Text, 'Scopes GET /auth/login asks for, space-separated.'),
  },
  secrets: setting('AGENTGOV_SECRETS', z.enum(['env']), 'Secret store: env reads AGENTGOV_SECRET_<REF>.', {
    default: 'env',
  }),
  secretOwners: setting(
    'AGENTGOV_SECRET_OWNERS',
    SecretOwners,
    "Secret references each tenant holds from the start, before any connector names them: no other tenant's connector ever resolves them (variable: tenant=ref,ref;tenant=ref).",
    {
      toEnv: (v: string | Record<string, string[]>) =>
        typeof v === 'string'
          ? v
          : Object.entries(v)
              .map(([tenant, refs]) => `${tenant}=${refs.join(',')}`)
              .join(';'),
    },
  ),
  checkpointInterval: setting(
    'AGENTGOV_CHECKPOINT_INTERVAL',
    Duration,
    'Time between signed audit checkpoints (0: none).',
    { default: 60 },
  ),
  log: {
    level: setting('AGENTGOV_LOG_LEVEL', z.enum(['debug', 'info', 'warn', 'error']), 'Least level logged.', {
      default: 'info',
    }),
    requests: setting(
      'AGENTGOV_REQUEST_LOG',
      z.boolean(),
      'One line per request on stdout (environment: off to disable).',
      { default: true, ...flag('on', 'off') },
    ),
  },
  metrics: {
    token: setting(
      'AGENTGOV_METRICS_TOKEN',
      z.string().min(16, 'at least 16 characters'),
      'Bearer token of a Prometheus scraper; unset: enterprise_admin credentials.',
      { secret: true },
    ),
  },
  proxy: {
    trust: setting(
      'AGENTGOV_TRUST_PROXY',
      TrustProxy,
      'Proxies trusted for the client address (Express trust proxy syntax); unset: none.',
    ),
    forwardedHeader: setting(
      'AGENTGOV_FORWARDED_HEADER',
      z.enum(['x-forwarded-for', 'forwarded']),
      'The header those proxies set.',
      { default: 'x-forwarded-for' },
    ),
  },
  cookies: {
    secure: setting(
      'AGENTGOV_SECURE_COOKIES',
      z.boolean(),
      'Session cookie __Host-session (HTTPS only) instead of session.',
      { default: false, ...flag('1', '0') },
    ),
  },
  tls: {
    cert: setting(
      'AGENTGOV_TLS_CERT',
      Text,
      "PEM file of the server's certificate chain: HTTPS instead of HTTP.",
      { path: true },
    ),
    key: setting('AGENTGOV_TLS_KEY', Text, 'PEM file of its private key.', { path: true }),
    clientCa: setting(
      'AGENTGOV_TLS_CLIENT_CA',
      Text,
      "PEM file of the CA of internal callers' client certificates.",
      { path: true },
    ),
    clientAuth: setting(
      'AGENTGOV_TLS_CLIENT_AUTH',
      z.enum(['off', 'optional', 'require']),
      'Client certificates: off, optional (default with a client CA: required on internalPaths only) or require (every connection).',
    ),
    internalPaths: setting(
      'AGENTGOV_TLS_INTERNAL_PATHS',
      z.array(z.string().startsWith('/')).min(1),
      'Under optional: the paths that need a client certificate (default /api/v1/metrics/prometheus; environment: comma-separated).',
      list,
    ),
  },
  mcp: {
    config: setting(
      'AGENTGOV_MCP_CONFIG',
      Text,
      'The MCP proxy configuration (kind McpProxy); unset: no /api/v1/mcp.',
      { path: true },
    ),
    resource: setting(
      'AGENTGOV_MCP_RESOURCE',
      Url,
      'OAuth resource of /api/v1/mcp; default <origin>/api/v1/mcp.',
    ),
  },
  webhooks: {
    tenant: setting('AGENTGOV_WEBHOOK_TENANT', Text, 'Tenant of webhook deliveries that name none.'),
  },
  connectors: {
    egress: setting(
      'AGENTGOV_CONNECTOR_EGRESS',
      z.enum(['public', 'private', 'any']),
      "Where connectors' requests may go: public (public addresses only), private (all but link-local and cloud metadata), any.",
      { default: 'private' },
    ),
    networks: setting(
      'AGENTGOV_CONNECTOR_NETWORKS',
      Networks,
      'Networks connectors may reach whatever the egress rule (CIDR, comma-separated in the variable).',
      { toEnv: (v: string | string[]) => (Array.isArray(v) ? v.join(',') : v) },
    ),
  },
} satisfies SettingsTree;

/** The `spec` of a GovernanceServer (strict). */
export const GovernanceServerSpecSchema = settingsSchema(GOVERNANCE_SERVER_SETTINGS);
/** Environment variable <-> `spec.` key path, every setting. */
export const GOVERNANCE_SERVER_TABLE = settingsTable(GOVERNANCE_SERVER_SETTINGS);
