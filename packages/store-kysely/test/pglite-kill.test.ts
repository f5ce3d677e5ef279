/**
 * Nothing acknowledged is lost on the embedded default when its process dies: a child process
 * appends to the audit log of a PGlite data directory (opened as the reference server opens it:
 * `openStore({ database: DIR })`, whose exchanges skip PGlite's `syncToFs`, a no-op on Node's
 * file system) and is killed with SIGKILL mid-load, twice — the second time after it started again
 * on the directory the first one left. Every append it acknowledged is in the directory afterwards,
 * and the chain verifies, gap-free.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { generateAuditKeys, verifyTenant } from '@agentgov/audit';
import { InMemorySecretStore } from '@agentgov/core';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openStore } from '../src/index';
import { describePGlite } from './helpers';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const worker = fileURLToPath(new URL('./fixtures/pglite-kill-worker.ts', import.meta.url));
const TENANT = 'tenant-killed';
/** Acknowledged appends to wait for before each kill (the worker keeps appending meanwhile). */
const ACKS_BEFORE_KILL = 150;

/** Runs the worker until it has acknowledged `acks` appends, kills it (SIGKILL); its acknowledged ids. */
async function appendUntilKilled(dir: string, env: Record<string, string>, acks: number): Promise<string[]> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', worker, dir, TENANT, '4'], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  const acknowledged: string[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const closed = new Promise<void>((resolve) => lines.once('close', resolve));
  await new Promise<void>((resolve, reject) => {
    lines.on('line', (line) => {
      const id = /^ack (\S+)$/.exec(line)?.[1];
      if (!id) return;
      acknowledged.push(id);
      // Killed as soon as the count is reached: appends are in flight at that moment.
      if (acknowledged.length === acks) {
        child.kill('SIGKILL');
        resolve();
      }
    });
    void exited.then(({ code, signal }) => {
      if (signal !== 'SIGKILL') reject(new Error(`the worker exited (${code}): ${stderr}`));
    });
  });
  const { signal } = await exited;
  expect(signal).toBe('SIGKILL');
  // Lines the worker wrote before it died are acknowledged appends too.
  await closed;
  return acknowledged;
}

describePGlite('embedded PGlite killed mid-load', () => {
  describe('embedded PGlite killed mid-load (SIGKILL)', () => {
    it('keeps every acknowledged append, and the chain verifies gap-free', { timeout: 180_000 }, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'agentgov-pglite-kill-'));
      onTestFinished(() => rm(dir, { recursive: true, force: true }));
      const keys = await generateAuditKeys();
      const first = await appendUntilKilled(dir, keys.env, ACKS_BEFORE_KILL);
      // Started again on what the killed process left (PGlite recovers the directory), killed again.
      const second = await appendUntilKilled(dir, keys.env, ACKS_BEFORE_KILL);
      const acknowledged = [...first, ...second];
      expect(new Set(acknowledged).size).toBe(acknowledged.length);

      const stores = await openStore({ database: dir });
      try {
        const missing: string[] = [];
        for (const id of acknowledged) if (!(await stores.audit.get(TENANT, id))) missing.push(id);
        expect(missing).toEqual([]);
        const head = await stores.audit.head(TENANT);
        expect(head?.seq).toBeGreaterThanOrEqual(acknowledged.length);
        const secrets = new InMemorySecretStore({
          'audit-commitment-key': keys.commitmentKey,
          'audit-signing-key': keys.signingKey,
        });
        const report = await verifyTenant(stores.audit, TENANT, { secrets });
        expect(report.ok, JSON.stringify(report.firstBreak)).toBe(true);
        expect(report.checked).toBe(head?.seq);
      } finally {
        await stores.close();
      }
    });
  });
});
