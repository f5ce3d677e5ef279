/**
 * `agentgov audit verify` on the reference server's data directory (issue 14): it finds the keys
 * where the server keeps them (the environment, else the database's development keys), so
 * identifiers and checkpoint signatures are checked; a directory a running server holds is
 * refused in words ("in use by process N") instead of a WebAssembly abort.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAuditLog, ensureAuditKeysOrThrow, fileKeyStore, generateAuditKeys } from '@agentgov/audit';
import { InMemorySecretStore } from '@agentgov/core';
import { afterAll, describe, expect, it } from 'vitest';
import { type CliIo, run } from '../src/index';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function io(env: Record<string, string | undefined> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const value: CliIo = { stdout: (t) => out.push(t), stderr: (t) => err.push(t), env, isTTY: false };
  return { io: value, out: () => out.join(''), err: () => err.join('') };
}

describe('agentgov audit verify on the server data directory', () => {
  it('uses the development keys the server kept in the database: identifiers checked', async () => {
    const { openStore, sql } = await import('@agentgov/store-kysely');
    const dir = mkdtempSync(join(tmpdir(), 'agentgov-serverdir-'));
    dirs.push(dir);
    const keys = await generateAuditKeys();
    const stores = await openStore({ database: dir });
    // What examples/server/src/dev-secrets.ts writes when the environment has no audit keys.
    await sql`CREATE TABLE agentgov_dev_secrets (ref text PRIMARY KEY, value text NOT NULL)`.execute(
      stores.db,
    );
    await sql`INSERT INTO agentgov_dev_secrets (ref, value) VALUES ('audit-commitment-key', ${keys.commitmentKey}), ('audit-signing-key', ${keys.signingKey})`.execute(
      stores.db,
    );
    const log = createAuditLog({
      store: stores.audit,
      secrets: new InMemorySecretStore({
        'audit-commitment-key': keys.commitmentKey,
        'audit-signing-key': keys.signingKey,
      }),
    });
    for (let i = 0; i < 3; i++) {
      (
        await log.append({
          tenantId: 'acme',
          userId: `u${i}`,
          actionType: 'tool_invocation',
          actionDetail: { i },
          policyApplied: 'default',
          policyResult: 'allow',
          outcome: 'success',
          requestId: `r${i}`,
        })
      )._unsafeUnwrap();
    }
    (await log.checkpoint('acme'))._unsafeUnwrap();
    await stores.close();

    const t = io({ AGENTGOV_DATA_DIR: dir }); // no --database, no key in the environment
    expect(await run(['audit', 'verify'], t.io), t.err()).toBe(0);
    expect(t.out()).toContain(
      'tenant acme: intact — 3 entries, leaves and columns checked, identifiers checked, 1 checkpoint(s), signatures valid',
    );
  }, 60_000);

  it('the store-kysely README layout: keys in a fileKeyStore beside the PGlite directory, read with --keys', async () => {
    const { openStore } = await import('@agentgov/store-kysely');
    const dir = mkdtempSync(join(tmpdir(), 'agentgov-keysdir-'));
    dirs.push(dir);
    const stores = await openStore({ database: join(dir, 'db') });
    const secrets = fileKeyStore(join(dir, 'keys'));
    await ensureAuditKeysOrThrow(secrets, { store: stores.audit });
    const log = createAuditLog({ store: stores.audit, secrets });
    (
      await log.append({
        tenantId: 'acme',
        userId: 'alice',
        actionType: 'tool_invocation',
        actionDetail: { tool: 'tracker_update' },
        policyApplied: 'actions-default',
        policyResult: 'allow',
        outcome: 'success',
        requestId: 'req-1',
      })
    )._unsafeUnwrap();
    (await log.checkpoint('acme'))._unsafeUnwrap();
    await stores.close();

    // Without the keys: not verified, exit 1, and the message says how to give them.
    const none = io();
    expect(await run(['audit', 'verify', '--database', join(dir, 'db')], none.io)).toBe(1);
    expect(none.err()).toContain("commitment key 'audit-commitment-key' missing — give it with --keys DIR");
    // With --keys: everything checked (--deep, the default, still accepted).
    const t = io();
    expect(
      await run(
        ['audit', 'verify', '--database', join(dir, 'db'), '--keys', join(dir, 'keys'), '--deep'],
        t.io,
      ),
      t.err(),
    ).toBe(0);
    expect(t.out()).toBe(
      'tenant acme: intact — 1 entries, leaves and columns checked, identifiers checked, 1 checkpoint(s), signatures valid\n',
    );
  }, 60_000);

  it('refuses a directory a running process holds, naming the process', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentgov-held-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'agentgov.pid'), `${process.ppid}\n`); // a process that is running
    const t = io();
    expect(await run(['audit', 'verify', '--database', dir], t.io)).toBe(2);
    expect(t.err()).toContain(`is in use by process ${process.ppid}; stop it`);
  });
});
