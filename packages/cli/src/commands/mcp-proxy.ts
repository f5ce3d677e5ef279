/**
 * `agentgov mcp proxy --config mcp.yaml --policies DIR [--database URL|DIR] [--audit-file FILE]`:
 * the governing MCP proxy on stdin/stdout, for desktop assistants. The upstreams and the session's
 * user come from the configuration; decisions from a policy-as-code directory (the built-in
 * engine). Every `tool_invocation` entry is appended to a hash-chained audit log (@agentgov/audit):
 * with `--database` (a PGlite directory or a PostgreSQL URL, as `agentgov audit verify
 * --database`) the tamper-evident log in that database — with its pending approvals, which a
 * human then decides through the governance service on the same database; without it, a log of
 * the run. Each record is also written as a JSON line to FILE (default without `--database`:
 * stderr — stdout is the MCP channel). Runs until the assistant closes stdin.
 */
import { existsSync, statSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { createAuditLog, ensureAuditKeysOrThrow, generateAuditKeys } from '@agentgov/audit';
import {
  type AuditEntryInput,
  type AuditStore,
  EnvSecretStore,
  InMemoryAuditStore,
  InMemorySecretStore,
  type SecretStore,
  type ToolCallInbox,
  type WritableSecretStore,
} from '@agentgov/core';
import { createMcpProxy, loadMcpConfig } from '@agentgov/mcp';
import { bundleEngine, loadPolicyBundle } from '@agentgov/policy';
import type { SqlStores } from '@agentgov/store-kysely';
import { type CliIo, EXIT, parseUsage, UsageError } from '../io';
import { holderOf, redactDatabase } from './audit-verify';
import { describe } from './policy-common';

const USAGE =
  'usage: agentgov mcp proxy --config FILE --policies DIR [--database URL|DIR] [--audit-file FILE]';

/**
 * The audit keys of a database: the environment (AGENTGOV_SECRET_AUDIT_*) first, then the
 * development keys the reference server keeps in it (`agentgov_dev_secrets`); when neither has
 * them and the log is empty they are generated there, as the server does (first writer wins), so
 * `agentgov audit verify --database` and the server use the same keys.
 */
async function databaseSecrets(
  stores: SqlStores,
  env: Record<string, string | undefined>,
): Promise<SecretStore> {
  const { sql } = await import('@agentgov/store-kysely');
  const db = stores.db;
  const kept: WritableSecretStore = {
    async get(ref) {
      const { rows } = await sql<{ value: string }>`SELECT value FROM agentgov_dev_secrets WHERE ref = ${ref}`
        .execute(db)
        .catch(() => ({ rows: [] as { value: string }[] }));
      return rows[0]?.value;
    },
    async set(ref, value) {
      await sql`CREATE TABLE IF NOT EXISTS agentgov_dev_secrets (ref text PRIMARY KEY, value text NOT NULL)`.execute(
        db,
      );
      await sql`INSERT INTO agentgov_dev_secrets (ref, value) VALUES (${ref}, ${value})
        ON CONFLICT (ref) DO NOTHING`.execute(db);
    },
  };
  const fromEnv = new EnvSecretStore(env);
  const layered: WritableSecretStore = {
    get: async (ref) => (await fromEnv.get(ref)) ?? (await kept.get(ref)),
    set: (ref, value) => kept.set(ref, value),
  };
  await ensureAuditKeysOrThrow(layered, { store: stores.audit });
  return layered;
}

/** Opens --database (migrated: the proxy writes), refusing a PGlite directory a server holds. */
async function openDatabase(database: string): Promise<SqlStores> {
  const { databaseKind, openStore } = await import('@agentgov/store-kysely');
  if (databaseKind(database) === 'pglite-dir') {
    if (existsSync(database) && !statSync(database).isDirectory())
      throw new UsageError(`${database} is not a PGlite database directory`);
    // PGlite opens its directory exclusively: a running server's would be corrupted.
    const pid = holderOf(database);
    if (pid !== undefined)
      throw new UsageError(
        `${database} is in use by process ${pid}; give the proxy PostgreSQL to share a database with a running server`,
      );
  }
  try {
    return await openStore({ database });
  } catch (error) {
    throw new UsageError(`cannot open ${redactDatabase(database)}: ${(error as Error).message}`);
  }
}

export default async function mcpProxy(args: string[], io: CliIo): Promise<number> {
  const { values } = parseUsage(parse, args, USAGE);
  if (!values.config) throw new UsageError(`--config FILE is required\n${USAGE}`);
  if (!values.policies)
    throw new UsageError(`--policies DIR is required (the policy-as-code directory)\n${USAGE}`);
  const config = await loadMcpConfig(values.config).catch((error: Error) => {
    throw new UsageError(error.message);
  });
  if (!config.identity)
    throw new UsageError(`${values.config}: identity {tenantId, userId} is required for stdio`);
  const bundle = await loadPolicyBundle(values.policies);
  if (bundle.isErr()) throw new UsageError(describe(bundle.error));
  if (bundle.value.tenantId !== config.identity.tenantId)
    throw new UsageError(
      `the policies are tenant '${bundle.value.tenantId}', the configuration's identity is tenant '${config.identity.tenantId}'`,
    );
  const { engine } = await bundleEngine(bundle.value);

  let stores: SqlStores | undefined;
  let store: AuditStore;
  let secrets: SecretStore;
  if (values.database) {
    stores = await openDatabase(values.database);
    store = stores.audit;
    try {
      secrets = await databaseSecrets(stores, io.env);
    } catch (error) {
      await stores.close();
      throw new UsageError(`audit keys of ${redactDatabase(values.database)}: ${(error as Error).message}`);
    }
  } else {
    const keys = await generateAuditKeys();
    store = new InMemoryAuditStore();
    secrets = new InMemorySecretStore({
      'audit-commitment-key': keys.commitmentKey,
      'audit-signing-key': keys.signingKey,
    });
  }
  const log = createAuditLog({ store, secrets });
  const file = values['audit-file'];
  const echo = file !== undefined || stores === undefined;
  const audit = {
    async append(input: AuditEntryInput) {
      const r = await log.append(input);
      if (r.isOk() && echo) {
        const record = await store.get(input.tenantId, r.value.id);
        const line = `${JSON.stringify({ seq: record?.seq, hash: record?.hash, prevHash: record?.prevHash, entry: r.value })}\n`;
        if (file) await appendFile(file, line, 'utf8');
        else io.stderr(line);
      }
      return r;
    },
  };
  const inbox: ToolCallInbox | undefined = stores?.toolCalls;
  const proxy = createMcpProxy(config, {
    engine,
    audit,
    ...(inbox ? { inbox } : {}),
    onWarning: (w) => io.stderr(`agentgov mcp: ${w.upstream}${w.tool ? ` ${w.tool}` : ''}: ${w.problem}\n`),
  });
  const { server } = await proxy.serveStdio();
  await new Promise<void>((resolve) => {
    const previous = server.onclose;
    server.onclose = () => {
      previous?.();
      resolve();
    };
    process.stdin.once('end', resolve);
  });
  await proxy.close();
  await stores?.close();
  return EXIT.ok;
}

function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: false,
    strict: true,
    options: {
      config: { type: 'string' },
      policies: { type: 'string' },
      'audit-file': { type: 'string' },
      database: { type: 'string' },
    },
  });
}
