/**
 * A prepared statement on PGlite in ONE protocol exchange (see `prepared.ts`).
 *
 * `PGlite.query(text, params)` sends Parse, Describe, Bind, Describe, Execute and Sync as six
 * separate calls into the WebAssembly module, and PostgreSQL parses and plans the text every time
 * (~0.25 ms of a 1-row append's ~1 ms here). A registered statement instead goes as one buffer
 * (written with PGlite's own `protocol.serialize`, its rows read with its `parseResults`) to
 * `execProtocol`: Close + Parse of the named statement on its first use on this PGlite instance
 * (and again after any error, which may have left it unparsed), then Bind, Describe, Execute, Sync.
 * PostgreSQL keeps the statement's plan; the exchange runs under PGlite's own query lock
 * (`runExclusive`) as `query` does.
 *
 * After an exchange PGlite calls its filesystem's `syncToFs` (by default). On Node's file system
 * and in memory that does nothing — PostgreSQL's own writes reach the files as it makes them — yet
 * costs a turn of PGlite's filesystem mutex (~20 µs, about 5 % of a 1-row append); only the
 * browser's IndexedDB and OPFS file systems copy anything there. So the instances `openPGlite`
 * opens (a directory or memory) are marked with `markWritesThrough` and skip it; any other
 * instance (one the application passes in) keeps PGlite's default.
 */
import type { QueryResult } from 'kysely';

/** The part of PGlite this path uses (absent on a structural fake: the usual `query` then). */
export interface PGliteProtocol {
  execProtocol(
    message: Uint8Array,
    options?: { throwOnError?: boolean; syncToFs?: boolean },
  ): Promise<{ messages: readonly { name: string }[] }>;
  runExclusive?<T>(fn: () => Promise<T>): Promise<T>;
}

type PGliteModule = typeof import('@electric-sql/pglite');

/** PGlite instances whose file system's `syncToFs` does nothing (Node's file system, memory). */
const writesThrough = new WeakSet<object>();

/** Marks `client` as on Node's file system or in memory: its exchanges skip `syncToFs`. */
export function markWritesThrough<T extends object>(client: T): T {
  writesThrough.add(client);
  return client;
}

/**
 * PGlite's own protocol serializer and result parser, loaded on the first prepared statement
 * (only a PGlite instance reaches here, so the optional peer is installed; the dialect module
 * itself never imports it).
 */
let pgliteModule: Promise<PGliteModule> | undefined;
const loadPGlite = (): Promise<PGliteModule> => {
  pgliteModule ??= import('@electric-sql/pglite');
  return pgliteModule;
};

/** The messages of one exchange: [Close + Parse,] Bind, Describe portal, Execute, Sync. */
function encodeExecute(
  { serialize }: PGliteModule['protocol'],
  name: string,
  parseText: string | undefined,
  values: (string | null)[],
): Uint8Array {
  const parts: Uint8Array[] = [];
  if (parseText !== undefined) {
    parts.push(serialize.close({ type: 'S', name }), serialize.parse({ name, text: parseText }));
  }
  parts.push(
    serialize.bind({ statement: name, values }),
    serialize.describe({ type: 'P' }),
    serialize.execute({}),
    serialize.sync(),
  );
  return Buffer.concat(parts);
}

/**
 * Runs a registered statement on `client` (parsing it first unless `parsed` holds its name, or when
 * the session no longer has it) and returns its rows. The name is in `parsed` only after an
 * exchange that succeeded.
 */
export async function executePrepared<R>(
  client: PGliteProtocol,
  parsed: Set<string>,
  name: string,
  text: string,
  values: (string | null)[],
): Promise<QueryResult<R>> {
  const pglite = await loadPGlite();
  const options = { throwOnError: true, syncToFs: !writesThrough.has(client) };
  const exchange = (parse: boolean) => {
    const message = encodeExecute(pglite.protocol, name, parse ? text : undefined, values);
    const run = () => client.execProtocol(message, options);
    return client.runExclusive ? client.runExclusive(run) : run();
  };
  const known = parsed.has(name);
  parsed.delete(name);
  let result: Awaited<ReturnType<typeof exchange>>;
  try {
    result = await exchange(!known);
  } catch (error) {
    // The session lost the statement (e.g. `DEALLOCATE ALL`): parse it again, once.
    if (!known || (error as { code?: unknown } | null)?.code !== '26000') throw error;
    result = await exchange(true);
  }
  parsed.add(name);
  // PGlite's own parsing of the rows, as `PGlite.query` gives them (its default type parsers).
  const [rows] = pglite.parse.parseResults(
    result.messages as Parameters<PGliteModule['parse']['parseResults']>[0],
    pglite.types.parsers,
  );
  return { rows: (rows?.rows ?? []) as R[] };
}
