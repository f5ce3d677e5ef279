import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAuditLog, fileKeyStore, generateAuditKeys } from '@agentgov/audit';
import {
  type AuditEntryInput,
  type AuditRecord,
  type AuditStore,
  EnvSecretStore,
  InMemoryAuditStore,
} from '@agentgov/core';
import { afterAll, describe, expect, it } from 'vitest';
import { createAuditVerify, type Progress, redactDatabase } from '../src/commands/audit-verify';
import { type CliIo, run } from '../src/index';

const KEYS = await generateAuditKeys();
const ENV = { ...KEYS.env };

function io(env: Record<string, string | undefined> = ENV) {
  const out: string[] = [];
  const err: string[] = [];
  const value: CliIo = { stdout: (t) => out.push(t), stderr: (t) => err.push(t), env, isTTY: false };
  return { io: value, out: () => out.join(''), err: () => err.join('') };
}

const input = (tenantId: string, i: number): AuditEntryInput => ({
  tenantId,
  userId: `user-${i % 3}`,
  actionType: 'tool_invocation',
  actionDetail: { i },
  policyApplied: 'default',
  policyResult: 'allow',
  outcome: 'success',
  requestId: `req-${i}`,
});

async function fill(store: AuditStore, tenantId: string, n: number, checkpoint = true): Promise<void> {
  const log = createAuditLog({ store, secrets: new EnvSecretStore({ ...ENV }) });
  for (let i = 0; i < n; i += 1000) {
    const batch = Array.from({ length: Math.min(1000, n - i) }, (_, k) => input(tenantId, i + k));
    (await log.appendBatch(batch))._unsafeUnwrap();
  }
  if (checkpoint) (await log.checkpoint(tenantId))._unsafeUnwrap();
}

/** Serves a tenant's rows through a mutating hook: a store an attacker edited. */
/**
 * The store, with `tamper` applied to every record it reads back — through `scan`, and through
 * `scanPages` (what the verifier reads when a store has it; its pages are read-only, so each
 * record is tampered in a copy).
 */
function tampered(store: AuditStore, tamper: (r: AuditRecord) => void): AuditStore {
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'scan') {
        return async function* (tenantId: string, options?: Parameters<AuditStore['scan']>[1]) {
          for await (const r of target.scan(tenantId, options)) {
            tamper(r);
            yield r;
          }
        };
      }
      if (prop === 'scanPages' && target.scanPages) {
        const pages = target.scanPages.bind(target);
        return async function* (tenantId: string, options?: Parameters<AuditStore['scan']>[1]) {
          for await (const page of pages(tenantId, options)) {
            yield page.map((r) => {
              const copy = structuredClone(r) as AuditRecord;
              tamper(copy);
              return copy;
            });
          }
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const opener = (store: AuditStore) => async () => ({ audit: store, close: async () => {} });

describe('agentgov audit verify (injected store)', () => {
  it('exit 0 on an intact log, every tenant by default, identifiers and signatures checked', async () => {
    const store = new InMemoryAuditStore();
    await fill(store, 'acme', 30);
    await fill(store, 'globex', 5);
    const t = io();
    const code = await createAuditVerify({ openStore: opener(store) })(['--database', 'x'], t.io);
    expect(code).toBe(0);
    const full =
      'tenant acme: intact — 30 entries, leaves and columns checked, identifiers checked, 1 checkpoint(s), signatures valid\n' +
      'tenant globex: intact — 5 entries, leaves and columns checked, identifiers checked, 1 checkpoint(s), signatures valid\n';
    expect(t.out()).toBe(full);
    // --deep names the default (accepted so existing scripts keep working).
    const deep = io();
    expect(
      await createAuditVerify({ openStore: opener(store) })(['--database', 'x', '--deep'], deep.io),
    ).toBe(0);
    expect(deep.out()).toBe(full);
    // --leaves-only is the fast check, and says what it did not do.
    const fast = io();
    expect(
      await createAuditVerify({ openStore: opener(store) })(['--database', 'x', '--leaves-only'], fast.io),
    ).toBe(0);
    expect(fast.out()).toBe(
      'tenant acme: intact — 30 entries, leaves checked (columns not re-derived: --leaves-only), 1 checkpoint(s), signatures valid\n' +
        'tenant globex: intact — 5 entries, leaves checked (columns not re-derived: --leaves-only), 1 checkpoint(s), signatures valid\n',
    );
  });

  it('without the keys the log is NOT verified: exit 1, naming the missing keys and how to give them', async () => {
    const store = new InMemoryAuditStore();
    await fill(store, 'acme', 10);
    const t = io({});
    const code = await createAuditVerify({ openStore: opener(store) })(['--database', 'x'], t.io);
    expect(code).toBe(1);
    expect(t.out()).toContain('tenant acme: NOT VERIFIED — 10 entries read, nothing broken, but:');
    expect(t.out()).toContain(
      "identifiers not checked: commitment key 'audit-commitment-key' missing — give it with --keys DIR",
    );
    expect(t.err()).toContain('AGENTGOV_SECRET_AUDIT_COMMITMENT_KEY');
    expect(t.err()).toContain("checkpoint signatures not checked: signing key 'audit-signing-key' missing");
    expect(t.err()).toContain('--public-key FILE');
    expect(t.err()).toContain('--allow-unchecked');

    const j = io({});
    expect(await createAuditVerify({ openStore: opener(store) })(['--database', 'x', '--json'], j.io)).toBe(
      1,
    );
    const json = JSON.parse(j.out());
    expect(json).toMatchObject({
      ok: false,
      firstBreak: { tenantId: 'acme', entryId: null, reason: 'unchecked' },
      tenants: [{ ok: false, identifiers: 'unchecked', checked: 10 }],
    });
    expect(json.tenants[0].unchecked.map((u: { key: string }) => u.key)).toEqual([
      'audit-commitment-key',
      'audit-signing-key',
    ]);
  });

  it('--allow-unchecked accepts the partial check explicitly: exit 0, still reported unchecked', async () => {
    const store = new InMemoryAuditStore();
    await fill(store, 'acme', 10);
    const t = io({});
    const code = await createAuditVerify({ openStore: opener(store) })(
      ['--database', 'x', '--allow-unchecked', '--json'],
      t.io,
    );
    expect(code).toBe(0);
    const json = JSON.parse(t.out());
    expect(json).toMatchObject({
      ok: true,
      firstBreak: null,
      tenants: [{ ok: true, identifiers: 'unchecked', allowUnchecked: true, checked: 10 }],
    });
    expect(json.tenants[0].checkpoints[0].signature).toBe('unchecked');
    const text = io({});
    expect(
      await createAuditVerify({ openStore: opener(store) })(
        ['--database', 'x', '--allow-unchecked'],
        text.io,
      ),
    ).toBe(0);
    expect(text.out()).toBe(
      'tenant acme: intact — 10 entries, leaves and columns checked, identifiers UNCHECKED (no commitment key), 1 checkpoint(s), signatures unchecked (no public key) (partial check accepted: --allow-unchecked)\n',
    );
  });

  it('--keys DIR reads a fileKeyStore directory: identifiers and signatures checked', async () => {
    const store = new InMemoryAuditStore();
    await fill(store, 'acme', 6);
    const dir = mkdtempSync(join(tmpdir(), 'agentgov-keys-'));
    try {
      const keys = fileKeyStore(join(dir, 'keys'));
      await keys.set('audit-commitment-key', KEYS.commitmentKey);
      await keys.set('audit-signing-key', KEYS.signingKey);
      const t = io({});
      const cmd = createAuditVerify({ openStore: opener(store) });
      expect(await cmd(['--database', 'x', '--keys', join(dir, 'keys')], t.io), t.err()).toBe(0);
      expect(t.out()).toBe(
        'tenant acme: intact — 6 entries, leaves and columns checked, identifiers checked, 1 checkpoint(s), signatures valid\n',
      );
      expect(t.err()).toBe('');
      // A mistyped directory fails clearly (never a verification with no keys).
      for (const [wrong, message] of [
        [join(dir, 'kyes'), /--keys .*kyes: no such directory/],
        [dir, /--keys .*: holds neither audit-commitment-key nor audit-signing-key/],
      ] as const) {
        const bad = io({});
        const code = await cmd(['--database', 'x', '--keys', wrong], bad.io).catch((e: Error) => {
          bad.io.stderr(e.message);
          return 2;
        });
        expect(code).toBe(2);
        expect(bad.err()).toMatch(message);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--public-key checks checkpoint signatures without any secret', async () => {
    const store = new InMemoryAuditStore();
    await fill(store, 'acme', 4);
    const dir = mkdtempSync(join(tmpdir(), 'agentgov-pk-'));
    const file = join(dir, 'pub.jwk');
    writeFileSync(file, JSON.stringify(KEYS.publicJwk));
    const t = io({ AGENTGOV_SECRET_AUDIT_COMMITMENT_KEY: KEYS.commitmentKey });
    expect(
      await createAuditVerify({ openStore: opener(store) })(['--database', 'x', '--public-key', file], t.io),
    ).toBe(0);
    expect(t.out()).toContain('signatures valid');
    const other = join(dir, 'other.jwk');
    writeFileSync(other, JSON.stringify((await generateAuditKeys()).publicJwk));
    const t2 = io({});
    expect(
      await createAuditVerify({ openStore: opener(store) })(
        ['--database', 'x', '--public-key', other],
        t2.io,
      ),
    ).toBe(1);
    expect(t2.out()).toContain('signature INVALID');
    rmSync(dir, { recursive: true, force: true });
  });

  it('exit 1 on a broken chain; the JSON names the first broken entry id', async () => {
    let victim = '';
    const clean = new InMemoryAuditStore();
    await fill(clean, 'acme', 12);
    await fill(clean, 'globex', 3);
    const store = tampered(clean, (r) => {
      if (r.seq === 7) {
        r.entry.outcome = 'denied';
        victim = r.entry.id;
      }
    });
    // A changed column is not what the leaf-only check reads: intact over the leaves, and it says so.
    const leaves = io();
    expect(
      await createAuditVerify({ openStore: opener(store) })(
        ['--database', 'x', '--json', '--leaves-only'],
        leaves.io,
      ),
    ).toBe(0);
    expect(JSON.parse(leaves.out()).tenants[0]).toMatchObject({ ok: true, depth: 'leaf', derived: 0 });
    // The default check re-derives the columns and finds it.
    const t = io();
    const code = await createAuditVerify({ openStore: opener(store) })(['--database', 'x', '--json'], t.io);
    expect(code).toBe(1);
    const json = JSON.parse(t.out());
    expect(json.ok).toBe(false);
    expect(json.firstBreak).toMatchObject({
      tenantId: 'acme',
      entryId: victim,
      seq: 7,
      reason: 'hash_mismatch',
    });
    expect(json.tenants.map((r: { ok: boolean }) => r.ok)).toEqual([false, true]);

    const text = io();
    expect(
      await createAuditVerify({ openStore: opener(store) })(['--database', 'x', '--tenant', 'acme'], text.io),
    ).toBe(1);
    expect(text.out()).toContain(`first broken entry: ${victim} (seq 7): hash_mismatch`);

    // A changed leaf is found by both checks, the default and --leaves-only.
    const leafEdited = tampered(clean, (r) => {
      if (r.seq === 5) r.leaf = (r.leaf as string).replace('"outcome":"success"', '"outcome":"denied"');
    });
    for (const flags of [[], ['--leaves-only']]) {
      const l = io();
      expect(
        await createAuditVerify({ openStore: opener(leafEdited) })(
          ['--database', 'x', '--json', ...flags],
          l.io,
        ),
        flags.join(' '),
      ).toBe(1);
      expect(JSON.parse(l.out()).firstBreak).toMatchObject({
        tenantId: 'acme',
        seq: 5,
        reason: 'hash_mismatch',
      });
    }
  });

  it('exit 2 on unusable input', async () => {
    const store = new InMemoryAuditStore();
    await fill(store, 'acme', 2, false);
    const cmd = createAuditVerify({ openStore: opener(store) });
    const cases: [string[], Record<string, string>, RegExp][] = [
      [[], ENV, /--database is required/],
      [['--database', 'x', '--bogus'], ENV, /Unknown option/],
      [['--database', 'x', '--deep', '--leaves-only'], ENV, /--deep and --leaves-only contradict each other/],
      [['--database', 'x', 'extra'], ENV, /positional/i],
      [['--database', 'x', '--tenant', 'nobody'], ENV, /tenant nobody has no audit entries/],
      [['--database', 'x'], { AGENTGOV_SECRET_AUDIT_COMMITMENT_KEY: 'short' }, /shorter than 32/],
      [['--database', 'x', '--public-key', '/nonexistent.jwk'], ENV, /not a readable JWK/],
      [
        ['--database', 'x', '--keys', '/nonexistent-keys'],
        ENV,
        /--keys \/nonexistent-keys: no such directory/,
      ],
    ];
    for (const [args, env, message] of cases) {
      const t = io(env);
      const code = await run(['audit', 'verify', ...args], t.io).catch(() => -1);
      // `run` uses the default opener; the injected one is exercised directly below.
      const direct = io(env);
      const directCode = await cmd(args, direct.io).catch((e: Error) => {
        direct.io.stderr(e.message);
        return 2;
      });
      expect(directCode).toBe(2);
      expect(direct.err()).toMatch(message);
      expect(code).toBe(2);
    }
    const failing = createAuditVerify({
      openStore: async () => {
        throw new Error('connect ECONNREFUSED for postgres://u:secret@h/db');
      },
    });
    const t = io();
    const code = await failing(['--database', 'postgres://u:secret@h/db'], t.io).catch((e: Error) => {
      t.io.stderr(e.message);
      return 2;
    });
    expect(code).toBe(2);
    expect(t.err()).toContain('cannot open postgres://u:***@h/db');
    expect(redactDatabase('postgresql://me:p%40ss@host:5432/x')).toBe('postgresql://me:***@host:5432/x');
  });

  it('shows progress on long runs only', async () => {
    const store = new InMemoryAuditStore();
    await fill(store, 'big', 6000, false);
    await fill(store, 'small', 10, false);
    const events: string[] = [];
    const progress: Progress = {
      start: (total, label) => events.push(`start ${label} ${total}`),
      update: (v, total) => events.push(`update ${v}/${total}`),
      stop: () => events.push('stop'),
    };
    const cmd = createAuditVerify({ openStore: opener(store), progress: async () => progress });
    expect(await cmd(['--database', 'x'], io().io)).toBe(0);
    expect(events[0]).toBe('start tenant big 6000');
    expect(events).toContain('update 6000/6000');
    expect(events.at(-1)).toBe('stop');
    expect(events.filter((e) => e.includes('small'))).toEqual([]);
  });
});

describe('agentgov audit verify (PGlite directory through @agentgov/store-kysely)', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('verifies a PGlite directory (exit 0), detects a row edited behind the triggers (exit 1)', async () => {
    const { openStore, sql } = await import('@agentgov/store-kysely');
    const dir = mkdtempSync(join(tmpdir(), 'agentgov-verify-'));
    dirs.push(dir);
    const stores = await openStore({ database: dir });
    await fill(stores.audit, 'acme', 25);
    await stores.close();

    const ok = io();
    expect(await run(['audit', 'verify', '--database', dir], ok.io)).toBe(0);
    expect(ok.out()).toContain(
      'tenant acme: intact — 25 entries, leaves and columns checked, identifiers checked, 1 checkpoint(s), signatures valid',
    );

    // An operator with database access edits a column behind the store's back: the triggers
    // that forbid UPDATE switched off (session_replication_role = replica), the leaf and hash kept.
    const editor = await openStore({ database: dir, migrate: false });
    await editor.db.transaction().execute(async (trx) => {
      await sql`SET LOCAL session_replication_role = replica`.execute(trx);
      await sql`UPDATE audit_entries SET outcome = 'denied' WHERE tenant_id = 'acme' AND seq = 9`.execute(
        trx,
      );
    });
    await editor.close();

    // The default check (no flag) re-derives the columns and finds the edited row.
    const broken = io();
    expect(await run(['audit', 'verify', '--database', dir, '--json'], broken.io)).toBe(1);
    const first = JSON.parse(broken.out()).firstBreak;
    expect(first).toMatchObject({ tenantId: 'acme', seq: 9, reason: 'hash_mismatch' });
    expect(first.entryId).toMatch(/^[0-9A-Z]{26}$/);
    const text = io();
    expect(await run(['audit', 'verify', '--database', dir], text.io)).toBe(1);
    expect(text.out()).toContain(`first broken entry: ${first.entryId} (seq 9): hash_mismatch`);

    // --leaves-only does not look at the columns, and its summary says so.
    const fast = io();
    expect(await run(['audit', 'verify', '--database', dir, '--leaves-only'], fast.io)).toBe(0);
    expect(fast.out()).toContain(
      'tenant acme: intact — 25 entries, leaves checked (columns not re-derived: --leaves-only), 1 checkpoint(s), signatures valid',
    );
  }, 60_000);

  it('exit 2 for a directory that does not exist (never creates one)', async () => {
    const t = io();
    const missing = join(tmpdir(), `agentgov-missing-${process.pid}-${Date.now()}`);
    expect(await run(['audit', 'verify', '--database', missing], t.io)).toBe(2);
    expect(t.err()).toContain('no PGlite database directory');
  });

  it.skipIf(!process.env.TEST_DATABASE_URL && process.env.AGENTGOV_REQUIRE_SERVICES !== '1')(
    'verifies a tenant on PostgreSQL (TEST_DATABASE_URL)',
    async () => {
      const { openStore } = await import('@agentgov/store-kysely');
      const url = process.env.TEST_DATABASE_URL as string;
      const stores = await openStore({ database: url });
      const tenant = `verify-${process.pid}-${Date.now()}`;
      await fill(stores.audit, tenant, 15);
      await stores.close();
      const t = io();
      expect(await run(['audit', 'verify', '--database', url, '--tenant', tenant, '--json'], t.io)).toBe(0);
      expect(JSON.parse(t.out()).tenants[0]).toMatchObject({ ok: true, checked: 15, identifiers: 'checked' });
    },
    60_000,
  );
});
