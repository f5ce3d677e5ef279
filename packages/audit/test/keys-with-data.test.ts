/**
 * Keys live with the data they protect: `ensureAuditKeysOrThrow` creates keys only for an empty log (a
 * missing key of a log with records is an AuditKeyError, never a silent new key), and
 * `fileKeyStore` keeps them across restarts so a second run verifies what the first wrote.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryAuditStore, InMemorySecretStore } from '@agentgov/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AuditKeyError,
  createAuditLog,
  ensureAuditKeys,
  ensureAuditKeysOrThrow,
  fileKeyStore,
  verifyTenant,
} from '../src/index';

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'agentgov-keys-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const entry = {
  tenantId: 'acme',
  userId: 'alice',
  actionType: 'tool_invocation',
  policyApplied: 'p',
  policyResult: 'allow',
  outcome: 'success',
  requestId: 'r-1',
} as const;

describe('ensureAuditKeysOrThrow with the store it protects', () => {
  it('creates both keys for an empty log, and nothing once they exist', async () => {
    const secrets = new InMemorySecretStore();
    const store = new InMemoryAuditStore();
    expect((await ensureAuditKeysOrThrow(secrets, { store })).created).toEqual([
      'audit-commitment-key',
      'audit-signing-key',
    ]);
    expect((await ensureAuditKeysOrThrow(secrets, { store })).created).toEqual([]);
  });

  it('ensureAuditKeys is the deprecated name of ensureAuditKeysOrThrow (one release)', () => {
    expect(ensureAuditKeys).toBe(ensureAuditKeysOrThrow);
  });

  it('refuses to make a new key for a log that already has records', async () => {
    const secrets = new InMemorySecretStore();
    const store = new InMemoryAuditStore();
    await ensureAuditKeysOrThrow(secrets, { store });
    (await createAuditLog({ store, secrets }).append(entry))._unsafeUnwrap();
    const lost = new InMemorySecretStore({
      'audit-signing-key': (await secrets.get('audit-signing-key')) ?? '',
    });
    const refused = ensureAuditKeysOrThrow(lost, { store });
    await expect(refused).rejects.toBeInstanceOf(AuditKeyError);
    await expect(ensureAuditKeysOrThrow(lost, { store })).rejects.toThrow(
      /audit-commitment-key.*already holds 1 record/,
    );
    expect(await lost.get('audit-commitment-key')).toBeUndefined();
  });
});

describe('fileKeyStore', () => {
  it('keeps the keys across restarts: the second run verifies what the first wrote', async () => {
    const dir = tmp();
    const store = new InMemoryAuditStore();
    for (let run = 0; run < 2; run++) {
      const secrets = fileKeyStore(join(dir, 'keys'));
      await ensureAuditKeysOrThrow(secrets, { store });
      (await createAuditLog({ store, secrets }).append({ ...entry, requestId: `r-${run}` }))._unsafeUnwrap();
      const report = await verifyTenant(store, 'acme', { secrets });
      expect(report.ok).toBe(true);
    }
    expect(statSync(join(dir, 'keys', 'audit-commitment-key')).mode & 0o777).toBe(0o600);
  });

  it('refuses references that are not plain file names', async () => {
    await expect(fileKeyStore(tmp()).set('../escape', 'x')).rejects.toBeInstanceOf(AuditKeyError);
  });
});
