/**
 * The reference server's configuration contract (DESIGN.md, "Reference server contract"):
 * every variable of that table, parsed and checked in one place.
 */
import path from 'node:path';
import {
  browserHost,
  DEV_OIDC_CLIENT,
  DURATION_FORM,
  GOVERNANCE_SERVER_TABLE,
  parseDurationSeconds,
  parseNetworks,
  parseSecretOwners,
  parsesWith,
  RedisUrl,
} from '@agentgov/core';
import { z } from 'zod';
import { type TlsSettings, tlsSettings } from './tls-config';

const Port = z
  .string()
  .trim()
  .regex(/^\d+$/, 'expected a port number from 0 to 65535 (0: any free port)')
  .transform(Number)
  .refine((n) => n <= 65535, 'expected a port number from 0 to 65535 (0: any free port)');

const Duration = z.string().transform((value, ctx) => {
  const seconds = parseDurationSeconds(value);
  if (seconds === undefined) {
    ctx.addIssue({ code: 'custom', message: DURATION_FORM });
    return z.NEVER;
  }
  return seconds;
});

const EnvSchema = z.object({
  PORT: Port.default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  AGENTGOV_FRAMEWORK: z.enum(['express', 'koa']).default('express'),
  DATABASE_URL: z.string().min(1).optional(),
  AGENTGOV_DATA_DIR: z.string().min(1).default('./.agentgov'),
  REDIS_URL: RedisUrl.optional(),
  OPA_URL: z.url().optional(),
  OIDC_ISSUER: z.url().optional(),
  OIDC_CLIENT_ID: z.string().min(1).optional(),
  OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  OIDC_REDIRECT_URI: z.url().optional(),
  AGENTGOV_SECRETS: z.enum(['env']).default('env'),
  /** Not in DESIGN.md's table: the scopes GET /auth/login asks for. */
  OIDC_SCOPES: z.string().min(1).optional(),
  /** Not in DESIGN.md's table: time between signed audit checkpoints, `60`, `30s`, `1m` (0: none). */
  AGENTGOV_CHECKPOINT_INTERVAL: Duration.default(60),
  /** Not in DESIGN.md's table: the least level written to the log (pino JSON lines on stdout). */
  AGENTGOV_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  /** Not in DESIGN.md's table: the bearer token of a Prometheus scraper (else: enterprise_admin). */
  AGENTGOV_METRICS_TOKEN: z.string().min(16, 'at least 16 characters').optional(),
  /**
   * Not in DESIGN.md's table: the proxies trusted for the client address, in Express's `trust
   * proxy` syntax (`true`, a hop count, `loopback, 10.0.0.0/8`); unset or `false`: none.
   */
  AGENTGOV_TRUST_PROXY: z.string().min(1).optional(),
  /** Not in DESIGN.md's table: the header those proxies set, `x-forwarded-for` or `forwarded` (RFC 7239). */
  AGENTGOV_FORWARDED_HEADER: z.enum(['x-forwarded-for', 'forwarded']).default('x-forwarded-for'),
  /**
   * Not in DESIGN.md's table: `1` when the server is reached over HTTPS only — the session cookie
   * is then `__Host-session` instead of the spec's `session`. Opt-in, never derived from a URL.
   */
  AGENTGOV_SECURE_COOKIES: z.enum(['0', '1']).default('0'),
  /**
   * Not in DESIGN.md's table: where connectors' requests may go (a connector's URL is its tenant
   * admin's to choose): `public`, `private` (default: all but link-local and cloud metadata), `any`.
   */
  AGENTGOV_CONNECTOR_EGRESS: z.enum(['public', 'private', 'any']).default('private'),
  /**
   * Not in DESIGN.md's table: secret references each tenant holds from the start
   * (`acme=acme-jira,acme-hook;globex=globex-token`), bound at start-up before any connector
   * names them, so no other tenant's connector ever resolves them.
   */
  AGENTGOV_SECRET_OWNERS: z
    .string()
    .refine(parsesWith(parseSecretOwners), 'expected tenant=ref,ref;tenant=ref')
    .optional(),
  /** Not in DESIGN.md's table: networks connectors may reach whatever the rule (CIDR, comma-separated). */
  AGENTGOV_CONNECTOR_NETWORKS: z
    .string()
    .refine(
      parsesWith(parseNetworks),
      'expected networks in CIDR form, comma-separated, such as 10.0.0.0/8,fd00::/8',
    )
    .optional(),
  // --- TLS (not in DESIGN.md's table; spec: "internal service-to-service traffic uses mutual TLS,
  // external protocol is HTTPS"). Each *_CERT, *_KEY and *_CA is a PEM file, read and checked at
  // configuration time (./tls-config.ts); docs/deployment.md shows a set-up end to end.
  /** The server's certificate chain and key: HTTPS instead of HTTP. */
  AGENTGOV_TLS_CERT: z.string().min(1).optional(),
  AGENTGOV_TLS_KEY: z.string().min(1).optional(),
  /** The CA of the internal callers' client certificates (metrics scraper, other services). */
  AGENTGOV_TLS_CLIENT_CA: z.string().min(1).optional(),
  /** `off`; `optional` (default with a client CA: required on the internal paths only); `require` (every connection). */
  AGENTGOV_TLS_CLIENT_AUTH: z.enum(['off', 'optional', 'require']).optional(),
  /** Under `optional`: comma-separated paths that need a client certificate (default /api/v1/metrics/prometheus). */
  AGENTGOV_TLS_INTERNAL_PATHS: z.string().min(1).optional(),
  /** TLS to OPA (an https:// OPA_URL): CA, client certificate and key, the name to verify if not the URL's host. */
  OPA_TLS_CA: z.string().min(1).optional(),
  OPA_TLS_CERT: z.string().min(1).optional(),
  OPA_TLS_KEY: z.string().min(1).optional(),
  OPA_TLS_SERVERNAME: z.string().min(1).optional(),
  /** TLS to PostgreSQL (a postgres:// DATABASE_URL without sslmode): the same four. */
  DATABASE_TLS_CA: z.string().min(1).optional(),
  DATABASE_TLS_CERT: z.string().min(1).optional(),
  DATABASE_TLS_KEY: z.string().min(1).optional(),
  DATABASE_TLS_SERVERNAME: z.string().min(1).optional(),
  /** TLS to Redis (a rediss:// REDIS_URL): the same four. */
  REDIS_TLS_CA: z.string().min(1).optional(),
  REDIS_TLS_CERT: z.string().min(1).optional(),
  REDIS_TLS_KEY: z.string().min(1).optional(),
  REDIS_TLS_SERVERNAME: z.string().min(1).optional(),
  // --- end of TLS
});

/**
 * The variables loadConfig reads; each is also a key of the configuration file (@agentgov/core's
 * GOVERNANCE_SERVER_SETTINGS — a test checks both list the same).
 */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(EnvSchema.shape);

type Database = { kind: 'pglite'; dataDir: string } | { kind: 'postgres'; url: string } | { kind: 'memory' };

export interface ServerConfig {
  port: number;
  host: string;
  framework: 'express' | 'koa';
  database: Database;
  redisUrl: string | undefined;
  opaUrl: string | undefined;
  oidc: {
    /** Undefined: start the development issuer in-process. */
    issuer: string | undefined;
    clientId: string;
    clientSecret: string;
    /**
     * Default `http://HOST:PORT/api/v1/auth/callback`, the route a browser comes back to
     * (undefined with PORT=0: derived from the port actually bound).
     */
    redirectUri: string | undefined;
    /** Undefined: `openid email agentgov` with the development issuer, else `openid email profile`. */
    scope: string | undefined;
  };
  secrets: 'env';
  /** Seconds between signed checkpoints of each tenant's audit log that had appends (0: none). */
  checkpointIntervalSeconds: number;
  /** Least level of the log. */
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** Bearer token of `GET /api/v1/metrics/prometheus`; undefined: enterprise_admin credentials. */
  metricsToken: string | undefined;
  /** Proxies trusted for the client address (undefined: none) and the header they set. */
  trustProxy: boolean | number | string | undefined;
  forwardedHeader: 'x-forwarded-for' | 'forwarded';
  /** Session cookie named `__Host-session` (HTTPS only) instead of `session`. */
  secureCookies: boolean;
  /** HTTPS and client certificates; TLS to OPA, PostgreSQL and Redis (PEM text, ./tls-config.ts). */
  tls: TlsSettings;
  /** Where connectors' requests may go (the work-tracking plugin's `egress`). */
  connectorEgress: { mode: 'public' | 'private' | 'any'; allow: string[] };
  /** Secret references each tenant holds from the start (bound at start-up). */
  secretOwners: Record<string, string[]>;
}

export class ConfigError extends Error {}

/** An `http://` URL on loopback: the only plain-HTTP OIDC issuer accepted (the development issuer, tests). */
export function isLoopbackHttp(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  return protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]', '::1'].includes(hostname);
}

export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  cwd = process.cwd(),
): ServerConfig {
  // Empty variables count as unset, as in most twelve-factor tooling.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    // Each problem names the variable, the value given (secrets withheld) and the form expected.
    const problems = parsed.error.issues
      .map((i) => {
        const key = i.path.join('.');
        return `${key}=${shownValue(key, cleaned[key])}: ${i.message}`;
      })
      .join('; ');
    throw new ConfigError(`invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  let database: Database;
  if (e.DATABASE_URL === undefined)
    database = { kind: 'pglite', dataDir: path.resolve(cwd, e.AGENTGOV_DATA_DIR) };
  else if (e.DATABASE_URL === 'memory:') database = { kind: 'memory' };
  else if (/^postgres(ql)?:\/\//.test(e.DATABASE_URL)) database = { kind: 'postgres', url: e.DATABASE_URL };
  else
    throw new ConfigError(
      `DATABASE_URL must be postgres://…, postgresql://… or memory: (got ${e.DATABASE_URL})`,
    );
  if (e.OIDC_ISSUER && (!e.OIDC_CLIENT_ID || !e.OIDC_CLIENT_SECRET)) {
    throw new ConfigError('OIDC_ISSUER needs OIDC_CLIENT_ID and OIDC_CLIENT_SECRET');
  }
  if (e.OIDC_ISSUER && new URL(e.OIDC_ISSUER).protocol !== 'https:' && !isLoopbackHttp(e.OIDC_ISSUER)) {
    throw new ConfigError(
      `invalid configuration: OIDC_ISSUER=${shownValue('OIDC_ISSUER', e.OIDC_ISSUER)}: expected an https:// URL (http:// only for an issuer on loopback: localhost, 127.0.0.1 or [::1])`,
    );
  }
  const tls = tlsSettings(e, { opaUrl: e.OPA_URL, databaseUrl: e.DATABASE_URL, redisUrl: e.REDIS_URL }, cwd);
  if (!tls.settings) throw new ConfigError(`invalid configuration: ${tls.problems.join('; ')}`);
  const scheme = tls.settings.listen ? 'https' : 'http';
  return {
    port: e.PORT,
    host: e.HOST,
    framework: e.AGENTGOV_FRAMEWORK,
    database,
    redisUrl: e.REDIS_URL,
    opaUrl: e.OPA_URL,
    oidc: {
      issuer: e.OIDC_ISSUER,
      clientId: e.OIDC_CLIENT_ID ?? DEV_OIDC_CLIENT.clientId,
      clientSecret: e.OIDC_CLIENT_SECRET ?? DEV_OIDC_CLIENT.clientSecret,
      redirectUri:
        e.OIDC_REDIRECT_URI ??
        (e.PORT === 0 ? undefined : `${scheme}://${browserHost(e.HOST)}:${e.PORT}/api/v1/auth/callback`),
      scope: e.OIDC_SCOPES,
    },
    secrets: e.AGENTGOV_SECRETS,
    checkpointIntervalSeconds: e.AGENTGOV_CHECKPOINT_INTERVAL,
    logLevel: e.AGENTGOV_LOG_LEVEL,
    metricsToken: e.AGENTGOV_METRICS_TOKEN,
    trustProxy: trustProxyOf(e.AGENTGOV_TRUST_PROXY),
    forwardedHeader: e.AGENTGOV_FORWARDED_HEADER,
    secureCookies: e.AGENTGOV_SECURE_COOKIES === '1',
    tls: tls.settings,
    connectorEgress: {
      mode: e.AGENTGOV_CONNECTOR_EGRESS,
      allow: e.AGENTGOV_CONNECTOR_NETWORKS ? parseNetworks(e.AGENTGOV_CONNECTOR_NETWORKS) : [],
    },
    secretOwners: e.AGENTGOV_SECRET_OWNERS ? parseSecretOwners(e.AGENTGOV_SECRET_OWNERS) : {},
  };
}

/** The settings whose value is a secret (`OIDC_CLIENT_SECRET`, `AGENTGOV_METRICS_TOKEN`). */
const SECRET_SETTINGS = new Set(GOVERNANCE_SERVER_TABLE.filter((e) => e.secret === true).map((e) => e.env));

/**
 * A value as an error message may show it: secrets withheld (the secret settings, and the secret
 * store's variables, `AGENTGOV_SECRET_<REF>`), a URL's password masked; every other setting shown
 * (`AGENTGOV_SECRETS=vault` names a store, `AGENTGOV_SECRET_OWNERS` references).
 */
export function shownValue(key: string, value: string | undefined): string {
  if (value === undefined) return '(unset)';
  const secret = CONFIG_VARIABLES.includes(key)
    ? SECRET_SETTINGS.has(key)
    : /SECRET|TOKEN|PASSWORD|KEY/i.test(key);
  if (secret) return `(${value.length} characters, not shown)`;
  return JSON.stringify(value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)[^@/]*@/i, '$1***@'));
}

/** `true`, `false`, a hop count, or a list of addresses, CIDR ranges and names (checked at start-up). */
function trustProxyOf(value: string | undefined): boolean | number | string | undefined {
  const v = value?.trim();
  if (v === undefined || v === '' || v === 'false') return undefined;
  if (v === 'true') return true;
  if (/^\d+$/.test(v)) return Number(v);
  if (!/^[0-9A-Za-z.:/,\s]+$/.test(v)) {
    throw new ConfigError(
      `AGENTGOV_TRUST_PROXY must be true, a hop count or addresses and CIDR ranges (got ${v})`,
    );
  }
  return v;
}
