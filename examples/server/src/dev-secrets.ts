/**
 * Audit keys for development. Production sets `AGENTGOV_SECRET_AUDIT_COMMITMENT_KEY` and
 * `AGENTGOV_SECRET_AUDIT_SIGNING_KEY` (see @agentgov/audit `generateAuditKeys()`); when they are
 * absent the reference server generates them once and keeps them beside the data they protect —
 * in the database (PGlite or PostgreSQL: every process sharing it gets the same keys, race-free)
 * or in memory for `DATABASE_URL=memory:` — and says so at start-up.
 */
import { ensureAuditKeysOrThrow } from '@agentgov/audit';
import { InMemorySecretStore, type SecretStore, type WritableSecretStore } from '@agentgov/core';
import { sql } from '@agentgov/store-kysely';

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
 * The server's secret store: the environment first, then development keys generated on demand.
 * Returns which refs were generated (empty when the environment provides them).
 */
export async function serverSecrets(
  env: SecretStore,
  db: SqlExecutor | undefined,
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
