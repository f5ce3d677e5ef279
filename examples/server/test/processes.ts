/**
 * Helpers of the fault and load tests: reference-server processes (the real `src/main.ts`, so a
 * crash is an exit the test sees), a throwaway database, the dev issuer, and the audit verdict.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { verifyTenant } from '@agentgov/audit';
import { EnvSecretStore } from '@agentgov/core';
import { openStore, sql } from '@agentgov/store-kysely';

const serverDir = fileURLToPath(new URL('..', import.meta.url));

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** Everything the process wrote to stderr (crash reports). */
  stderr(): string;
  stop(): Promise<void>;
}

export function startProcess(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: serverDir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr?.on('data', (c: Buffer) => {
    err += c.toString();
  });
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (url)
        resolve({
          child,
          url,
          stderr: () => err,
          async stop() {
            if (child.exitCode !== null || child.signalCode !== null) return;
            child.kill('SIGTERM');
            await once(child, 'exit');
          },
        });
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${out}\n${err}`)));
  });
}

export async function adminQuery(databaseUrl: string, text: string): Promise<void> {
  const admin = await openStore({ database: databaseUrl, migrate: false });
  try {
    await sql.raw(text).execute(admin.db);
  } finally {
    await admin.close();
  }
}

/** `databaseUrl` with another database name. */
export function withDatabase(databaseUrl: string, database: string, hostPort?: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `/${database}`;
  if (hostPort) url.host = hostPort;
  return url.href;
}

/** What the database holds for a tenant: policy ids, `policy_change` entries, the chain verdict. */
export async function inspectTenant(
  databaseUrl: string,
  tenant: string,
): Promise<{ policyIds: Set<string>; policyChanges: number; chainOk: boolean; checked: number }> {
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
