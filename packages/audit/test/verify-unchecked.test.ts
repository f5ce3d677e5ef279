/**
 * Unchecked is not intact (issue 23, item 10): a report whose identifiers or checkpoint
 * signatures could not be checked for want of a key is not ok — it names the key and how to give
 * it — unless the caller accepts a partial check explicitly with `allowUnchecked: true`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryAuditStore, InMemorySecretStore } from '@agentgov/core';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createAuditLog,
  ensureAuditKeysOrThrow,
  fileKeyStore,
  generateAuditKeys,
  verifyTenant,
} from '../src/index';
import { entryInput } from './helpers';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A log of 5 entries with one checkpoint, its keys kept in a fileKeyStore directory. */
async function keptLog() {
  const dir = mkdtempSync(join(tmpdir(), 'agentgov-unchecked-'));
  dirs.push(dir);
  const keys = fileKeyStore(join(dir, 'keys'));
  const store = new InMemoryAuditStore();
  await ensureAuditKeysOrThrow(keys, { store });
  const log = createAuditLog({ store, secrets: keys });
  for (let i = 0; i < 5; i++)
    (await log.append(entryInput({ userId: `u${i}`, requestId: `r${i}` })))._unsafeUnwrap();
  (await log.checkpoint('t1'))._unsafeUnwrap();
  return { store, keys, dir, publicJwk: (await log.loadPublicJwk())._unsafeUnwrap() };
}

describe('verifyTenant: unchecked is not intact', () => {
  it('with no keys at all the report is not ok and names both keys and how to give them', async () => {
    const { store } = await keptLog();
    const report = await verifyTenant(store, 't1');
    expect(report.ok).toBe(false);
    expect(report.firstBreak).toBeUndefined(); // nothing broke: it was not checked
    expect(report.identifiers).toBe('unchecked');
    expect(report.checkpoints[0]?.signature).toBe('unchecked');
    expect(report.unchecked).toEqual([
      expect.objectContaining({
        part: 'identifiers',
        key: 'audit-commitment-key',
        variable: 'AGENTGOV_SECRET_AUDIT_COMMITMENT_KEY',
        problem: expect.stringContaining('missing'),
        hint: expect.stringContaining('allowUnchecked'),
      }),
      expect.objectContaining({
        part: 'signatures',
        key: 'audit-signing-key',
        variable: 'AGENTGOV_SECRET_AUDIT_SIGNING_KEY',
        hint: expect.stringContaining('publicJwk'),
      }),
    ]);
  });

  it('a mistyped key directory is a missing key, not a pass', async () => {
    const { store, dir } = await keptLog();
    const report = await verifyTenant(store, 't1', { secrets: fileKeyStore(join(dir, 'kyes')) });
    expect(report.ok).toBe(false);
    expect(report.unchecked?.map((u) => u.part)).toEqual(['identifiers', 'signatures']);
  });

  it('only the public key: signatures checked, identifiers unchecked → not ok', async () => {
    const { store, publicJwk } = await keptLog();
    const report = await verifyTenant(store, 't1', { publicJwk });
    expect(report.checkpoints[0]).toMatchObject({ signature: 'valid', rootMatches: true });
    expect(report.ok).toBe(false);
    expect(report.unchecked?.map((u) => u.key)).toEqual(['audit-commitment-key']);
  });

  it('an unusable commitment key is reported as such (never silently skipped)', async () => {
    const { store, publicJwk } = await keptLog();
    const report = await verifyTenant(store, 't1', {
      publicJwk,
      secrets: new InMemorySecretStore({ 'audit-commitment-key': 'short' }),
    });
    expect(report.ok).toBe(false);
    expect(report.unchecked?.[0]).toMatchObject({
      part: 'identifiers',
      problem: expect.stringMatching(/unusable/),
    });
  });

  it('allowUnchecked: true accepts the partial check explicitly; the report still says unchecked', async () => {
    const { store } = await keptLog();
    const report = await verifyTenant(store, 't1', { allowUnchecked: true });
    expect(report).toMatchObject({ ok: true, identifiers: 'unchecked', allowUnchecked: true, checked: 5 });
    expect(report.unchecked?.map((u) => u.part)).toEqual(['identifiers', 'signatures']);
    expect(report.checkpoints[0]?.signature).toBe('unchecked');
  });

  it('allowUnchecked never hides a break', async () => {
    const { store } = await keptLog();
    const wrong = await generateAuditKeys();
    const report = await verifyTenant(store, 't1', { allowUnchecked: true, publicJwk: wrong.publicJwk });
    expect(report.ok).toBe(false);
    expect(report.checkpoints[0]?.signature).toBe('invalid');
  });

  it('the fileKeyStore the keys are kept in checks everything: ok, nothing unchecked', async () => {
    const { store, keys } = await keptLog();
    const report = await verifyTenant(store, 't1', { secrets: keys });
    expect(report).toMatchObject({ ok: true, identifiers: 'checked', checked: 5 });
    expect(report.checkpoints[0]).toMatchObject({ signature: 'valid', rootMatches: true });
    expect(report.unchecked).toBeUndefined();
  });

  it('no checkpoint yet: only the commitment key is needed', async () => {
    const store = new InMemoryAuditStore();
    const secrets = new InMemorySecretStore({ 'audit-commitment-key': 'k'.repeat(40) });
    const log = createAuditLog({ store, secrets });
    (await log.append(entryInput()))._unsafeUnwrap();
    expect(await verifyTenant(store, 't1', { secrets })).toMatchObject({ ok: true, identifiers: 'checked' });
  });
});
