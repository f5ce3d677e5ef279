/**
 * `agentgov db migrate` on a PGlite directory and on PostgreSQL (own schema, dropped after):
 * idempotent, exit 0; unusable input and connection failures exit 2 with a clear message.
 * PostgreSQL cases read TEST_DATABASE_URL (skipped without it, failing under AGENTGOV_REQUIRE_SERVICES=1).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeWithService } from '@agentgov/core/testing';
import { openStore } from '@agentgov/store-kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../src/index';
import { captureIo } from './capture-io';

async function migrate(...args: string[]) {
  const io = captureIo();
  const code = await run(['db', 'migrate', ...args], io);
  return { code, out: io.out, err: io.err };
}

describe('agentgov db migrate: PGlite directory and bad input', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentgov-cli-db-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('migrates a new PGlite directory, then a second run changes nothing', { timeout: 60_000 }, async () => {
    const data = join(dir, 'data');
    const first = await migrate('--database', data);
    expect(first.err).toBe('');
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/\d+ migrations? applied \(0001_initial/);
    // The first migration creates this month's partition and the 12 following: counted as created.
    expect(first.out).toMatch(
      /\naudit partitions ready through \d{4}-\d{2} \(13 created: audit_entries_p\d{6}(, audit_entries_p\d{6}){12}\)\n/,
    );

    // A second run: what packages/cli/README.md says it reports.
    const again = await migrate('--database', data);
    expect(again.code).toBe(0);
    expect(again.out.split('\n').slice(1)).toEqual([
      'no migrations to apply: the schema is up to date',
      expect.stringMatching(/^audit partitions ready through \d{4}-\d{2}$/),
      '',
    ]);
    const second = await migrate('--database', data, '--json');
    expect(second.code).toBe(0);
    expect(JSON.parse(second.out)).toMatchObject({ applied: [], partitions: { created: [], blocked: [] } });

    const stores = await openStore({ database: data, migrate: false });
    try {
      expect(await stores.audit.count()).toBe(0);
      expect(await stores.policies.count('t')).toBe(0);
    } finally {
      await stores.close();
    }
  });

  it('shows progress on a terminal and nothing extra when piped', { timeout: 60_000 }, async () => {
    const data = join(dir, 'tty');
    const tty = { ...captureIo(), isTTY: true };
    const io = Object.assign(tty, {
      stderr: (t: string) => {
        tty.err += t;
      },
      stdout: (t: string) => {
        tty.out += t;
      },
    });
    expect(await run(['db', 'migrate', '--database', data], io)).toBe(0);
    expect(io.err).toContain(`migrating ${data} (schema agentgov)…`);
    const piped = await migrate('--database', data);
    expect(piped.err).toBe('');
  });

  it('exit 2 without --database, with an unknown option, or with a file instead of a directory', async () => {
    const none = await migrate();
    expect(none.code).toBe(2);
    expect(none.err).toContain('--database is required');
    const unknown = await migrate('--database', dir, '--force');
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/force/);
    const file = join(dir, 'a-file');
    await writeFile(file, 'x');
    const notDir = await migrate('--database', file);
    expect(notDir.code).toBe(2);
    expect(notDir.err).toContain('is not a directory');
    const badSchema = await migrate('--database', dir, '--schema', 'Robert"); DROP');
    expect(badSchema.code).toBe(2);
    expect(badSchema.err).toContain('invalid --schema');
  });

  it('exit 2 with a clear message (password hidden) when PostgreSQL is unreachable', async () => {
    const r = await migrate('--database', 'postgres://agent:s3cret@127.0.0.1:1/nowhere');
    expect(r.code).toBe(2);
    expect(r.err).toContain('cannot open postgres://agent:***@127.0.0.1:1/nowhere');
    expect(r.err).not.toContain('s3cret');
  });
});

async function probePostgres(url: string): Promise<void> {
  const probe = await openStore({
    database: url,
    migrate: false,
    pool: { max: 1, connectionTimeoutMillis: 5_000 },
  });
  await probe.close();
}

await describeWithService(
  'agentgov db migrate: PostgreSQL',
  'TEST_DATABASE_URL',
  (url) => {
    const schema = `agentgov_t_${randomBytes(6).toString('hex')}`;
    afterAll(async () => {
      const stores = await openStore({ database: url, schema, migrate: false });
      await stores.db.schema.dropSchema(schema).ifExists().cascade().execute();
      await stores.close();
    });

    it('applies the migrations once; a second run is a no-op; postgresql:// works too', async () => {
      const first = await migrate('--database', url, '--schema', schema, '--json');
      expect(first.err).toBe('');
      expect(first.code).toBe(0);
      const report = JSON.parse(first.out) as { applied: string[]; partitions: { created: string[] } };
      expect(report.applied[0]).toBe('0001_initial');
      // A fresh schema: the partitions the first migration made are reported as created.
      expect(report.partitions.created).toHaveLength(13);
      expect(report.partitions.created.every((p) => /^audit_entries_p\d{6}$/.test(p))).toBe(true);
      const second = await migrate(
        '--database',
        url.replace(/^postgres:/, 'postgresql:'),
        '--schema',
        schema,
      );
      expect(second.code).toBe(0);
      expect(second.out).toContain('no migrations to apply: the schema is up to date');
      expect(second.out).toMatch(/audit partitions ready through \d{4}-\d{2}\n/);
      const stores = await openStore({ database: url, schema, migrate: false });
      try {
        // Every partition of this month and the 12 following exists already.
        expect(await stores.ensurePartitions()).toEqual({ created: [], blocked: [] });
        expect(await stores.audit.count()).toBe(0);
      } finally {
        await stores.close();
      }
    });
  },
  probePostgres,
);
