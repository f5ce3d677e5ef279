/**
 * Audit keys for development. Production sets `AGENTGOV_SECRET_AUDIT_COMMITMENT_KEY` and
 * `AGENTGOV_SECRET_AUDIT_SIGNING_KEY` (see @agentgov/audit `generateAuditKeys()`); when they are
 * absent the reference server generates them once and keeps them beside the data they protect —
 * in the database (PGlite or PostgreSQL: every process sharing it gets the same keys, race-free)
 * or in memory for `DATABASE_URL=memory:` — and says so at start-up. Keys the audit log would
 * refuse stop the start (`checkAuditKeys`) instead of failing every audited request.
 */
import { AuditKeyError, createAuditLog, ensureAuditKeysOrThrow } from '@agentgov/audit';
import {
  type AuditStore,
  EnvSecretStore,
  InMemorySecretStore,
  type SecretStore,
  type WritableSecretStore,
} from '@agentgov/core';
import { sql } from '@agentgov/store-kysely';
import { ConfigError, shownValue } from './config';

/** Anything raw SQL can run on (a Kysely instance of any schema). */
type SqlExecutor = Parameters<ReturnType<typeof sql>['execute']>[0];

/** Reads the first store that has a value. */
class LayeredSecretStore implements SecretStore {
  readonly #layers: readonly SecretStore[];
  constructor(...layers: SecretStore[]) {
    this.#layers = layers;
  }
  async get(ref: string): Promise<string | undefined> {
    for (const layer of this.#layers) {
      const value = await layer.get(ref);
      if (value !== undefined) return value;
    }
    return undefined;
  }
}

/** A secret table in the server's own database: first writer wins, every process reads the same. */
class SqlDevSecretStore implements WritableSecretStore {
  readonly #db: SqlExecutor;
  constructor(db: SqlExecutor) {
    this.#db = db;
  }
  async init(): Promise<void> {
    await sql`CREATE TABLE IF NOT EXISTS agentgov_dev_secrets (ref text PRIMARY KEY, value text NOT NULL)`.execute(
      this.#db,
    );
  }
  async get(ref: string): Promise<string | undefined> {
    const { rows } = await sql<{
      value: string;
    }>`SELECT value FROM agentgov_dev_secrets WHERE ref = ${ref}`.execute(this.#db);
    return rows[0]?.value;
  }
  async set(ref: string, value: string): Promise<void> {
    await sql`INSERT INTO agentgov_dev_secrets (ref, value) VALUES (${ref}, ${value}) ON CONFLICT (ref) DO NOTHING`.execute(
      this.#db,
    );
  }
}

/**
 * The server's secret store: the environment first, then development keys generated on demand,
 * both checked (`checkAuditKeys`). Returns which refs were generated (empty when the environment
 * provides them).
 */
export async function serverSecrets(
  env: SecretStore,
  db: SqlExecutor | undefined,
  /** The audit store the keys protect (the check of the keys reads nothing from it). */
  store: AuditStore,
): Promise<{ secrets: SecretStore; generated: string[] }> {
  let dev: WritableSecretStore;
  if (db) {
    const store = new SqlDevSecretStore(db);
    await store.init();
    dev = store;
  } else {
    dev = new InMemorySecretStore();
  }
  const secrets = new LayeredSecretStore(env, dev);
  const missing = new LayeredWritable(secrets, dev);
  const { created } = await ensureAuditKeysOrThrow(missing);
  await checkAuditKeys(secrets, env, store);
  return { secrets, generated: created };
}

/** Reads through the layers, writes to the development layer. */
class LayeredWritable implements WritableSecretStore {
  constructor(
    private readonly read: SecretStore,
    private readonly write: WritableSecretStore,
  ) {}
  get(ref: string): Promise<string | undefined> {
    return this.read.get(ref);
  }
  set(ref: string, value: string): Promise<void> {
    return this.write.set(ref, value);
  }
}

/** What each audit key must be, and where one comes from. */
const KEY_FORMS: Record<string, string> = {
  'audit-commitment-key':
    'set it to a random secret, such as the commitment key generateAuditKeys() of @agentgov/audit makes',
  'audit-signing-key':
    'set it to a private Ed25519 or P-256 JWK (JSON), such as the signing key generateAuditKeys() of @agentgov/audit makes',
};

/**
 * Reads both audit keys as the audit log reads them (its own checks: @agentgov/audit's, which also
 * make `agentgov audit verify` refuse a short commitment key): a key it would refuse at the first
 * append or checkpoint stops the start with a ConfigError naming the variable, instead of a
 * server whose audited requests all fail.
 */
async function checkAuditKeys(secrets: SecretStore, env: SecretStore, store: AuditStore): Promise<void> {
  const log = createAuditLog({ store, secrets });
  for (const result of [await log.commitment('key-check', 'key-check'), await log.loadPublicJwk()]) {
    if (result.isOk()) continue;
    const error = result.error;
    if (!(error instanceof AuditKeyError)) throw error;
    const reason = error.message.replace(/^audit key '[^']*' is invalid: /, '');
    const variable = EnvSecretStore.variableName(error.ref);
    const value = await env.get(error.ref);
    const what = KEY_FORMS[error.ref] ?? 'set it to a usable key';
    throw new ConfigError(
      value === undefined
        ? `the development audit key '${error.ref}' kept in the database (table agentgov_dev_secrets) is invalid: ${reason}; set ${variable}`
        : `invalid configuration: ${variable}=${shownValue(variable, value)}: ${reason}; ${what}`,
    );
  }
}
