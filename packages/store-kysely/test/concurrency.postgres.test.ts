/**
 * Two OS processes append 5,000 entries each to one tenant at the same time (single appends, 4 in
 * flight per process, through `@agentgov/audit` over the SQL store). The tenant's head row lock
 * must serialize them into one valid, gap-free chain of 10,000.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { generateAuditKeys, verifyTenant } from '@agentgov/audit';
import { InMemorySecretStore } from '@agentgov/core';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlStores } from '../src/index';
import { describePostgres, postgresStores } from './helpers';

const PER_PROCESS = 5_000;
const IN_FLIGHT = 4;
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const worker = fileURLToPath(new URL('./fixtures/append-worker.ts', import.meta.url));

function runWorker(args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', worker, ...args], {
      cwd: repoRoot,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`worker exited ${code}: ${err}`)),
    );
  });
}

await describePostgres('two processes appending to one tenant (postgres)', (url) => {
  describe('two processes appending to one tenant (postgres)', () => {
    let s: SqlStores & { cleanup: () => Promise<void> };
    beforeAll(async () => {
      s = await postgresStores(url);
    });
    afterAll(async () => {
      await s?.cleanup();
    });

    it(`2 × ${PER_PROCESS} concurrent appends leave one valid chain 1..${2 * PER_PROCESS}`, {
      timeout: 180_000,
    }, async () => {
      const keys = await generateAuditKeys();
      const tenant = 'tenant-concurrent';
      const outputs = await Promise.all(
        ['p1', 'p2'].map((label) =>
          runWorker([url, s.schema, tenant, String(PER_PROCESS), String(IN_FLIGHT), label], keys.env),
        ),
      );
      expect(outputs.join('')).toContain(`p1: appended ${PER_PROCESS}`);
      expect(outputs.join('')).toContain(`p2: appended ${PER_PROCESS}`);

      const total = 2 * PER_PROCESS;
      const { rows } = await sql<{ n: string; lo: string; hi: string; distinct_seq: string; p1: string }>`
        SELECT count(*)::text AS n, min(seq)::text AS lo, max(seq)::text AS hi,
               count(DISTINCT seq)::text AS distinct_seq,
               count(*) FILTER (WHERE action_detail->>'worker' = 'p1')::text AS p1
        FROM audit_entries WHERE tenant_id = ${tenant}`.execute(s.db);
      expect(rows[0]).toEqual({
        n: String(total),
        lo: '1',
        hi: String(total),
        distinct_seq: String(total),
        p1: String(PER_PROCESS),
      });
      expect(await s.audit.head(tenant)).toMatchObject({ seq: total });

      const secrets = new InMemorySecretStore({
        'audit-commitment-key': keys.commitmentKey,
        'audit-signing-key': keys.signingKey,
      });
      const report = await verifyTenant(s.audit, tenant, { secrets });
      expect(report.ok, JSON.stringify(report.firstBreak)).toBe(true);
      expect(report.checked).toBe(total);
      expect(report.identifiers).toBe('checked');
    });
  });
});
