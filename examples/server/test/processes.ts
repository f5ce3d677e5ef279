/**
 * Helpers of the fault and load tests: reference-server processes (the real `src/main.ts`, so a
 * crash is an exit the test sees), a throwaway database, the dev issuer, and the audit verdict.
 */
import { randomBytes } from 'node:crypto';
import { verifyTenant } from '@agentgov/audit';
import { EnvSecretStore } from '@agentgov/core';
import { servicesRequired } from '@agentgov/core/testing';
import { openStore, sql } from '@agentgov/store-kysely';
import { afterAll, beforeAll } from 'vitest';
import { type DevAccount, type DevIssuer, startDevIssuer } from '../src/dev-issuer';
import { type ServerProcess, startProcess } from './server-process';

export { type ServerProcess, startProcess };

export async function adminQuery(databaseUrl: string, text: string): Promise<void> {
  const admin = await openStore({ database: databaseUrl, migrate: false });
  try {
    await sql.raw(text).execute(admin.db);
  } finally {
    await admin.close();
  }
}

/** `databaseUrl` with another database name. */
function withDatabase(databaseUrl: string, database: string, hostPort?: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `/${database}`;
  if (hostPort) url.host = hostPort;
  return url.href;
}

/** What the database holds for a tenant: policy ids, `policy_change` entries, the chain verdict. */
export async function inspectTenant(
  databaseUrl: string,
  tenant: string,
): Promise<{
  policyIds: Set<string>;
  policyChanges: number;
  chainOk: boolean;
  checked: number;
  identifiers: string;
}> {
  const store = await openStore({ database: databaseUrl, migrate: false });
  try {
    const { rows } = await sql<{ ref: string; value: string }>`
      SELECT ref, value FROM agentgov_dev_secrets`.execute(store.db);
    const secrets = new EnvSecretStore(
      Object.fromEntries(rows.map((r) => [EnvSecretStore.variableName(r.ref), r.value])),
    );
    const report = await verifyTenant(store.audit, tenant, { secrets });
    const policies = await store.policies.list(tenant);
    const { total } = await store.audit.query(
      tenant,
      { actionType: 'policy_change' },
      { offset: 0, limit: 1 },
    );
    return {
      policyIds: new Set(policies.map((p) => p.id)),
      policyChanges: total,
      chainOk: report.ok && report.firstBreak === undefined,
      checked: report.checked,
      identifiers: report.identifiers,
    };
  } finally {
    await store.close();
  }
}

/** Percentile of sorted-or-not numbers (nearest rank). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The services the process tests need: the missing variable names ('' when both are set). Under
 * AGENTGOV_REQUIRE_SERVICES=1 a missing one fails the run at import instead of skipping.
 */
export function missingServices(): string {
  const missing = [
    !process.env.TEST_DATABASE_URL && 'TEST_DATABASE_URL',
    !process.env.TEST_REDIS_URL && 'TEST_REDIS_URL',
  ]
    .filter(Boolean)
    .join(', ');
  if (missing && servicesRequired()) throw new Error(`${missing} required (AGENTGOV_REQUIRE_SERVICES=1)`);
  return missing;
}

/** A throwaway database and a dev issuer for reference-server processes, with the env that joins them. */
export interface ProcessFixture {
  /** `agentgov_<name>_<suffix>` on TEST_DATABASE_URL's server. */
  database: string;
  /** The connection URL of that database (direct, not through any proxy). */
  databaseUrl: string;
  issuer: DevIssuer;
  /** The environment of `startProcess`: database, Redis, OIDC, port 0, built-in engine. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function processFixture(options: {
  name: string;
  accounts: DevAccount[];
  /** Reach the database through this host:port (a test's TCP proxy). */
  databaseHost?: string;
  /** Overrides (e.g. REDIS_URL through a proxy, OPA_URL). */
  env?: Record<string, string>;
}): Promise<ProcessFixture> {
  const server = process.env.TEST_DATABASE_URL as string;
  const database = `agentgov_${options.name.replace(/\W/g, '_')}_${randomBytes(5).toString('hex')}`;
  await adminQuery(server, `CREATE DATABASE ${database}`);
  const issuer = await startDevIssuer({
    clientId: options.name,
    clientSecret: `${options.name}-secret`,
    redirectUri: 'http://127.0.0.1:9/callback',
    accounts: options.accounts,
  });
  return {
    database,
    databaseUrl: withDatabase(server, database),
    issuer,
    env: {
      DATABASE_URL: withDatabase(server, database, options.databaseHost),
      REDIS_URL: process.env.TEST_REDIS_URL as string,
      PORT: '0',
      OIDC_ISSUER: issuer.issuer,
      OIDC_CLIENT_ID: issuer.clientId,
      OIDC_CLIENT_SECRET: issuer.clientSecret,
      OIDC_REDIRECT_URI: issuer.redirectUri,
      OPA_URL: '',
      ...options.env,
    },
    async close() {
      await issuer.close();
      await adminQuery(server, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => {});
    },
  };
}

/** An `enterprise_admin` account of the dev issuer in `tenant`. */
export function adminAccount(sub: string, tenant: string, extra: Partial<DevAccount> = {}): DevAccount {
  return {
    sub,
    email: `${sub}@x.example`,
    roles: ['enterprise_admin'],
    tenant_id: tenant,
    org_unit: 'eng',
    ...extra,
  };
}

/**
 * The set-up of a describe block that runs reference-server processes: before all its tests, a
 * fixture (`options()`, read then, so an earlier `beforeAll` can start what it points at) and
 * `count` processes on it, started one after the other (the first migrates); after them, the
 * processes stopped and the fixture closed. The returned handle is filled in by `beforeAll`.
 */
export function useProcesses(
  options: () => Parameters<typeof processFixture>[0],
  count = 1,
): { readonly fixture: ProcessFixture; readonly servers: ServerProcess[]; readonly server: ServerProcess } {
  let fixture: ProcessFixture | undefined;
  const servers: ServerProcess[] = [];
  beforeAll(async () => {
    fixture = await processFixture(options());
    for (let i = 0; i < count; i++) servers.push(await startProcess(fixture.env));
  }, 120_000);
  afterAll(async () => {
    for (const s of servers.splice(0)) await s.stop();
    await fixture?.close();
  }, 60_000);
  return {
    get fixture() {
      if (!fixture) throw new Error('useProcesses: the fixture is not started yet (use it inside a test)');
      return fixture;
    },
    servers,
    get server() {
      const first = servers[0];
      if (!first) throw new Error('useProcesses: no process is running');
      return first;
    },
  };
}

/** POSTs an enterprise-scope policy (`features`, content `{}`) of `tenant` to a process. */
export function postPolicy(
  baseUrl: string,
  token: string,
  policy: { tenant: string; name: string; changeReason: string },
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(`${baseUrl}/api/v1/policies`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      scope: 'enterprise',
      scopeId: policy.tenant,
      domain: 'features',
      name: policy.name,
      version: '1.0.0',
      content: '{}',
      changeReason: policy.changeReason,
    }),
    signal,
  });
}
