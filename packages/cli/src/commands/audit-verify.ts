/**
 * `agentgov audit verify --database URL|DIR [--tenant ID] [--keys DIR] [--public-key FILE]
 * [--leaves-only] [--deep] [--allow-unchecked] [--json]`
 *
 * Streams each tenant's audit log from PostgreSQL (`postgres://…`) or a PGlite directory
 * (anything else) and verifies the hash chain over the stored leaves (the exact text each hash
 * covers) and the signed checkpoints, and by default re-derives every entry from its columns (the
 * identifier commitments included), so a column edited behind the triggers fails the run.
 * `--leaves-only` is the fast check (leaves only, columns not re-derived — the summary says so;
 * entries stored without a leaf are still re-derived); `--deep` names the default (accepted for
 * existing scripts). Keys: `--keys DIR` (a `fileKeyStore` directory), then the environment
 * (AGENTGOV_SECRET_AUDIT_*), then the development keys the server kept in the database; the
 * checkpoints' public key also from --public-key. Unchecked is not intact: a part no key could
 * check fails the run (exit 1, naming the missing key and how to give it) unless
 * --allow-unchecked accepts a partial check.
 * Exit 0 intact, 1 any break or anything unchecked, 2 unusable input.
 * Read-only: it never migrates or writes the database.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  DEFAULT_COMMITMENT_KEY_REF,
  DEFAULT_SIGNING_KEY_REF,
  fileKeyStore,
  MIN_COMMITMENT_KEY_LENGTH,
  type UncheckedPart,
  type VerifyReport,
  verifyTenant,
} from '@agentgov/audit';
import { type AuditStore, EnvSecretStore, type SecretStore } from '@agentgov/core';
import { type CliIo, EXIT, UsageError } from '../io';

/** The part of an opened store bundle the command uses. */
export interface OpenedAuditStore {
  audit: AuditStore;
  /** Audit keys the reference server generated for development and kept in this database. */
  devSecrets?: Record<string, string>;
  close(): Promise<void>;
}

/** A progress display for long runs (cli-progress on a TTY by default). */
export interface Progress {
  start(total: number, label: string): void;
  update(value: number, total: number): void;
  stop(): void;
}

export interface AuditVerifyDeps {
  /** Opens the database named by --database (default: `openStore` of @agentgov/store-kysely, no migration). */
  openStore(database: string): Promise<OpenedAuditStore>;
  /** Creates the progress display, or undefined for none (default: cli-progress on stderr when a TTY). */
  progress(io: CliIo): Promise<Progress | undefined>;
}

/** Runs shorter than this many entries get no progress bar. */
export const PROGRESS_THRESHOLD = 5000;

const USAGE =
  'usage: agentgov audit verify --database URL|DIR [--tenant ID] [--keys DIR] [--public-key FILE] [--leaves-only] [--deep] [--allow-unchecked] [--json]';

/** Hides the password of a database URL in messages. */
export function redactDatabase(database: string): string {
  return database.replace(/^([a-z]+:\/\/[^:/@]*:)[^@]*@/i, '$1***@');
}

/** The PID in the reference server's lock file of a PGlite directory, when that process runs. */
export function holderOf(dir: string): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(join(dir, 'agentgov.pid'), 'utf8').trim());
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? pid : undefined;
  }
}

interface RawDb {
  selectFrom(table: string): {
    select(columns: string[]): { execute(): Promise<{ ref: string; value: string }[]> };
  };
}

async function defaultOpenStore(database: string): Promise<OpenedAuditStore> {
  const { databaseKind, openStore } = await import('@agentgov/store-kysely');
  if (databaseKind(database) === 'pglite-dir') {
    if (!existsSync(database) || !statSync(database).isDirectory()) {
      throw new UsageError(`no PGlite database directory at ${database}`);
    }
    // PGlite opens its directory exclusively: opening it under a running server would abort.
    const pid = holderOf(database);
    if (pid !== undefined) {
      throw new UsageError(
        `${database} is in use by process ${pid}; stop it (kill -TERM ${pid}) or verify through the server (GET /api/v1/audit/checkpoint and the proof routes)`,
      );
    }
  }
  const stores = await openStore({ database, migrate: false });
  // The reference server keeps generated development keys in its database: the same keys here.
  const rows = await (stores.db as unknown as RawDb)
    .selectFrom('agentgov_dev_secrets')
    .select(['ref', 'value'])
    .execute()
    .catch(() => []);
  return { ...stores, devSecrets: Object.fromEntries(rows.map((r) => [r.ref, r.value])) };
}

async function defaultProgress(io: CliIo): Promise<Progress | undefined> {
  if (!io.isTTY) return undefined;
  const { SingleBar, Presets } = (await import('cli-progress')).default;
  const bar = new SingleBar(
    {
      stream: process.stderr,
      format: '{label} [{bar}] {percentage}% | {value}/{total} entries | {eta_formatted}',
    },
    Presets.shades_classic,
  );
  let running = false;
  return {
    start(total, label) {
      bar.start(total, 0, { label });
      running = true;
    },
    update(value, total) {
      if (!running) return;
      bar.setTotal(total);
      bar.update(value);
    },
    stop() {
      if (running) bar.stop();
      running = false;
    },
  };
}

function parse(args: string[]) {
  try {
    return parseArgs({
      args,
      options: {
        database: { type: 'string' },
        tenant: { type: 'string' },
        'public-key': { type: 'string' },
        keys: { type: 'string' },
        'allow-unchecked': { type: 'boolean', default: false },
        // The default (accepted so existing scripts keep working); --leaves-only is the fast check.
        deep: { type: 'boolean', default: false },
        'leaves-only': { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
      },
      allowPositionals: false,
      strict: true,
    }).values;
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${USAGE}`);
  }
}

function readPublicKey(file: string | undefined): { kty: string } | undefined {
  if (file === undefined) return undefined;
  let jwk: unknown;
  try {
    jwk = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`--public-key ${file}: not a readable JWK (${(error as Error).message})`);
  }
  if (jwk === null || typeof jwk !== 'object' || !('kty' in jwk)) {
    throw new UsageError(`--public-key ${file}: not a JSON Web Key`);
  }
  return jwk as { kty: string };
}

/**
 * The `fileKeyStore` directory of --keys (the audit keys kept beside the data): it must exist and
 * hold at least one audit key file, so that a mistyped path fails here instead of verifying
 * nothing.
 */
async function readKeyDir(dir: string | undefined): Promise<SecretStore | undefined> {
  if (dir === undefined) return undefined;
  if (dir === '') throw new UsageError('--keys must not be empty');
  if (!existsSync(dir)) throw new UsageError(`--keys ${dir}: no such directory`);
  if (!statSync(dir).isDirectory()) throw new UsageError(`--keys ${dir}: not a directory`);
  const store = fileKeyStore(dir);
  const found = [];
  for (const ref of [DEFAULT_COMMITMENT_KEY_REF, DEFAULT_SIGNING_KEY_REF]) {
    if ((await store.get(ref).catch(() => undefined)) !== undefined) found.push(ref);
  }
  if (found.length === 0) {
    throw new UsageError(
      `--keys ${dir}: holds neither ${DEFAULT_COMMITMENT_KEY_REF} nor ${DEFAULT_SIGNING_KEY_REF} (the files fileKeyStore writes; is it the right directory?)`,
    );
  }
  return store;
}

/** How to give the key of an unchecked part, in this command's words. */
function howToGive(u: UncheckedPart): string {
  return u.part === 'identifiers'
    ? `identifiers not checked: commitment key '${u.key}' ${u.problem} — give it with --keys DIR (the fileKeyStore directory holding ${u.key}) or ${u.variable}`
    : `checkpoint signatures not checked: signing key '${u.key}' ${u.problem} — give --public-key FILE (the public JWK), --keys DIR (holding ${u.key}) or ${u.variable}`;
}

/** What was checked of the entries, in words (see `VerifyReport.depth`). */
function scope(report: VerifyReport): string {
  const unchecked = report.identifiers === 'checked' ? '' : ', identifiers UNCHECKED (no commitment key)';
  if (report.depth === 'deep') {
    return `leaves and columns checked${report.identifiers === 'checked' ? ', identifiers checked' : unchecked}`;
  }
  const derived =
    report.derived > 0
      ? `, ${report.derived} without a stored leaf re-derived from their columns${report.identifiers === 'checked' ? ' (identifiers checked)' : ''}`
      : '';
  return `leaves checked (columns not re-derived: --leaves-only)${derived}${unchecked}`;
}

function human(report: VerifyReport): string {
  const cps = report.checkpoints;
  const sig = cps.some((c) => c.signature === 'invalid')
    ? 'signature INVALID'
    : cps.some((c) => c.signature === 'unchecked')
      ? 'signatures unchecked (no public key)'
      : 'signatures valid';
  const cpText = cps.length === 0 ? 'no checkpoints' : `${cps.length} checkpoint(s), ${sig}`;
  const ids = scope(report);
  const unchecked = report.unchecked ?? [];
  if (report.ok) {
    const accepted = unchecked.length > 0 ? ' (partial check accepted: --allow-unchecked)' : '';
    return `tenant ${report.tenantId}: intact — ${report.checked} entries, ${ids}, ${cpText}${accepted}\n`;
  }
  const broken = report.firstBreak !== undefined || cps.some((c) => !c.ok);
  if (!broken) {
    const lines = [
      `tenant ${report.tenantId}: NOT VERIFIED — ${report.checked} entries read, nothing broken, but:`,
    ];
    for (const u of unchecked) lines.push(`  ${howToGive(u)}`);
    lines.push('  (--allow-unchecked accepts a partial check)');
    return `${lines.join('\n')}\n`;
  }
  const lines = [`tenant ${report.tenantId}: BROKEN`];
  const b = report.firstBreak;
  if (b) {
    lines.push(`  first broken entry: ${b.entryId || '(none)'} (seq ${b.seq}): ${b.reason}`, `  ${b.detail}`);
    if (b.expected !== undefined) lines.push(`  expected: ${JSON.stringify(b.expected)}`);
    if (b.actual !== undefined) lines.push(`  actual:   ${JSON.stringify(b.actual)}`);
  }
  for (const c of cps.filter((x) => !x.ok)) lines.push(`  checkpoint ${c.treeSize}: ${c.reason ?? 'failed'}`);
  lines.push(`  ${report.checked} entries read, ${ids}, ${cpText}`);
  for (const u of unchecked) lines.push(`  ${howToGive(u)}`);
  return `${lines.join('\n')}\n`;
}

export function createAuditVerify(deps: Partial<AuditVerifyDeps> = {}) {
  const open = deps.openStore ?? defaultOpenStore;
  const makeProgress = deps.progress ?? defaultProgress;

  return async function auditVerify(args: string[], io: CliIo): Promise<number> {
    const values = parse(args);
    if (values.deep && values['leaves-only']) {
      throw new UsageError(
        `--deep and --leaves-only contradict each other (the default is --deep)\n${USAGE}`,
      );
    }
    // The reference server's configuration when --database is not given: DATABASE_URL, else
    // AGENTGOV_DATA_DIR.
    const database = values.database ?? io.env.DATABASE_URL ?? io.env.AGENTGOV_DATA_DIR;
    if (!database)
      throw new UsageError(`--database is required (or DATABASE_URL / AGENTGOV_DATA_DIR)\n${USAGE}`);
    if (values.tenant === '') throw new UsageError('--tenant must not be empty');
    const publicJwk = readPublicKey(values['public-key']);
    const keyDir = await readKeyDir(values.keys);
    const env = new EnvSecretStore(io.env);
    const envKey = await env.get(DEFAULT_COMMITMENT_KEY_REF);
    if (envKey !== undefined && envKey.length < MIN_COMMITMENT_KEY_LENGTH) {
      throw new UsageError(
        `${EnvSecretStore.variableName(DEFAULT_COMMITMENT_KEY_REF)} is shorter than ${MIN_COMMITMENT_KEY_LENGTH} characters`,
      );
    }
    const dirKey = await keyDir?.get(DEFAULT_COMMITMENT_KEY_REF);
    if (dirKey !== undefined && dirKey.length < MIN_COMMITMENT_KEY_LENGTH) {
      throw new UsageError(
        `--keys ${values.keys}: ${DEFAULT_COMMITMENT_KEY_REF} is shorter than ${MIN_COMMITMENT_KEY_LENGTH} characters`,
      );
    }

    let opened: OpenedAuditStore;
    try {
      opened = await open(database);
    } catch (error) {
      if (error instanceof UsageError) throw error;
      throw new UsageError(`cannot open ${redactDatabase(database)}: ${(error as Error).message}`);
    }
    // Keys: the directory given with --keys, then as the server finds them: the environment, then
    // the database's development keys.
    const kept = opened.devSecrets ?? {};
    const secrets: SecretStore = {
      get: async (ref) => (await keyDir?.get(ref)) ?? (await env.get(ref)) ?? kept[ref],
    };
    const progress = await makeProgress(io);
    const reports: VerifyReport[] = [];
    try {
      let tenants: string[];
      try {
        tenants = values.tenant === undefined ? await opened.audit.tenants() : [values.tenant];
        if (values.tenant !== undefined && (await opened.audit.count(values.tenant)) === 0) {
          throw new UsageError(`tenant ${values.tenant} has no audit entries in ${redactDatabase(database)}`);
        }
      } catch (error) {
        if (error instanceof UsageError) throw error;
        throw new UsageError(
          `cannot read the audit log of ${redactDatabase(database)}: ${(error as Error).message}`,
        );
      }
      for (const tenantId of tenants) {
        let started = false;
        try {
          reports.push(
            await verifyTenant(opened.audit, tenantId, {
              secrets,
              ...(publicJwk ? { publicJwk } : {}),
              ...(values['allow-unchecked'] ? { allowUnchecked: true } : {}),
              deep: !values['leaves-only'],
              onProgress: (checked, total) => {
                if (!progress || total < PROGRESS_THRESHOLD) return;
                if (!started) {
                  progress.start(total, `tenant ${tenantId}`);
                  started = true;
                }
                progress.update(checked, total);
              },
            }),
          );
        } catch (error) {
          throw new UsageError(
            `cannot read the audit log of tenant ${tenantId}: ${(error as Error).message}`,
          );
        } finally {
          if (started) progress?.stop();
        }
      }
    } finally {
      await opened.close().catch(() => {});
    }

    const ok = reports.every((r) => r.ok);
    const broken = reports.find((r) => !r.ok);
    const notChecked = [
      ...new Map(
        reports
          .filter((r) => !r.ok)
          .flatMap((r) => r.unchecked ?? [])
          .map((u) => [u.part, u] as const),
      ).values(),
    ];
    if (values.json) {
      const firstBreak = broken
        ? {
            tenantId: broken.tenantId,
            ...(broken.firstBreak ??
              (broken.checkpoints.some((c) => !c.ok)
                ? { entryId: null, reason: 'checkpoint_invalid' }
                : {
                    entryId: null,
                    reason: 'unchecked',
                    detail: (broken.unchecked ?? []).map(howToGive).join('; '),
                  })),
          }
        : null;
      io.stdout(`${JSON.stringify({ ok, firstBreak, tenants: reports }, null, 2)}\n`);
    } else {
      if (reports.length === 0) io.stdout(`${redactDatabase(database)}: no audit entries\n`);
      for (const r of reports) io.stdout(human(r));
    }
    // Unchecked is not intact: say which key is missing and how to give it, whatever the format.
    if (notChecked.length > 0) {
      io.stderr(
        `agentgov audit verify: not verified — ${notChecked.map(howToGive).join('; ')}; or pass --allow-unchecked to accept a partial check\n`,
      );
    }
    return ok ? EXIT.ok : EXIT.findings;
  };
}

export default createAuditVerify();
