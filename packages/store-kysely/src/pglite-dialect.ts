/**
 * A minimal kysely dialect for PGlite (embedded PostgreSQL in WebAssembly).
 *
 * Why not `kysely-pglite`: its driver hands every caller a "connection" over the same PGlite
 * session without any mutual exclusion, so two concurrent kysely transactions interleave their
 * `BEGIN`/`COMMIT` on PGlite's single session (one commits the other's statements). It also ships
 * ESM only and pulls a CLI/codegen dependency tree. PGlite has exactly one session, so this driver
 * does what kysely's own SQLite driver does: a connection mutex — a connection is lent to one
 * query or one whole transaction at a time, everyone else waits in call order.
 *
 * The PGlite instance comes in as a structural type or an async factory (CONVENTIONS #2), so this
 * module never imports `@electric-sql/pglite` itself.
 */
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { executePrepared, type PGliteProtocol } from './pglite-protocol';
import { preparedName, textValue } from './prepared';

/** The part of `@electric-sql/pglite`'s `PGlite` this dialect uses. */
export interface PGliteLike {
  query<T = Record<string, unknown>>(
    sql: string,
    params?: unknown[],
  ): Promise<{ rows: T[]; affectedRows?: number; command?: string }>;
  close(): Promise<void>;
}

export interface PGliteDialectConfig {
  /** A PGlite instance, or an async factory called once on first use. */
  client: PGliteLike | (() => Promise<PGliteLike>);
  /** Runs once, on the connection, before the first query (e.g. `SET search_path`). */
  onCreateConnection?: (connection: DatabaseConnection) => Promise<void>;
  /** Whether `destroy()` closes the PGlite instance (default true). */
  closeOnDestroy?: boolean;
}

export class PGliteDialect implements Dialect {
  readonly #config: PGliteDialectConfig;
  constructor(config: PGliteDialectConfig) {
    this.#config = config;
  }
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new PGliteDriver(this.#config);
  }
  // biome-ignore lint/suspicious/noExplicitAny: kysely's own dialects use Kysely<any> here
  createIntrospector(db: Kysely<any>) {
    return new PostgresIntrospector(db);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
}

/** FIFO lock: one holder at a time, waiters served in call order. */
class ConnectionMutex {
  #tail: Promise<void> = Promise.resolve();
  async lock(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((resolve) => {
      release = resolve;
    });
    const previous = this.#tail;
    this.#tail = previous.then(() => next);
    await previous;
    return release;
  }
}

class PGliteDriver implements Driver {
  readonly #config: PGliteDialectConfig;
  readonly #mutex = new ConnectionMutex();
  #connection: PGliteConnection | undefined;
  #client: PGliteLike | undefined;
  #release: (() => void) | undefined;

  constructor(config: PGliteDialectConfig) {
    this.#config = config;
  }

  async init(): Promise<void> {
    const c = this.#config.client;
    this.#client = typeof c === 'function' ? await c() : c;
    this.#connection = new PGliteConnection(this.#client);
    if (this.#config.onCreateConnection) await this.#config.onCreateConnection(this.#connection);
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const release = await this.#mutex.lock();
    this.#release = release;
    if (!this.#connection) {
      release();
      throw new Error('PGlite driver is not initialized (or was destroyed)');
    }
    return this.#connection;
  }

  async releaseConnection(): Promise<void> {
    const release = this.#release;
    this.#release = undefined;
    release?.();
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const parts = ['begin'];
    if (settings.isolationLevel) parts.push(`isolation level ${settings.isolationLevel}`);
    if (settings.accessMode) parts.push(settings.accessMode);
    await connection.executeQuery(CompiledQuery.raw(parts.join(' ')));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint "${name.replaceAll('"', '""')}"`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to savepoint "${name.replaceAll('"', '""')}"`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release savepoint "${name.replaceAll('"', '""')}"`));
  }

  async destroy(): Promise<void> {
    const client = this.#client;
    // Wait until whoever holds the connection is done, then close.
    const release = await this.#mutex.lock();
    this.#connection = undefined;
    this.#client = undefined;
    try {
      if (client && this.#config.closeOnDestroy !== false) await client.close();
    } finally {
      release();
    }
  }
}

/** The named statements parsed on each PGlite instance (`pglite-protocol.ts`). */
const parsedOn = new WeakMap<object, Set<string>>();

class PGliteConnection implements DatabaseConnection {
  readonly #client: PGliteLike;
  constructor(client: PGliteLike) {
    this.#client = client;
  }

  /** A registered statement (`prepared.ts`) in one protocol exchange; undefined: not one. */
  #prepared<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> | undefined {
    const client = this.#client as PGliteLike & Partial<PGliteProtocol>;
    if (typeof client.execProtocol !== 'function') return undefined;
    const name = preparedName(compiledQuery.sql, '');
    if (name === undefined) return undefined;
    const values: (string | null)[] = [];
    for (const p of compiledQuery.parameters) {
      const v = textValue(p);
      if (v === undefined) return undefined;
      values.push(v);
    }
    let parsed = parsedOn.get(client);
    if (!parsed) {
      parsed = new Set();
      parsedOn.set(client, parsed);
    }
    return executePrepared<R>(client as PGliteProtocol, parsed, name, compiledQuery.sql, values);
  }

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const prepared = this.#prepared<R>(compiledQuery);
    if (prepared) return prepared;
    const result = await this.#client.query<R>(compiledQuery.sql, [...compiledQuery.parameters]);
    const command = result.command?.toUpperCase();
    const affects =
      command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE';
    return {
      rows: result.rows,
      ...(affects && result.affectedRows !== undefined
        ? { numAffectedRows: BigInt(result.affectedRows) }
        : {}),
    };
  }

  // biome-ignore lint/correctness/useYield: PGlite has no cursor streaming; callers page with keysets
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('PGlite does not support streaming queries; page with keyset pagination instead');
  }
}
