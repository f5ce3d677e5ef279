/**
 * A prepared statement on PGlite in ONE protocol exchange (see `prepared.ts`).
 *
 * `PGlite.query(text, params)` sends Parse, Describe, Bind, Describe, Execute and Sync as six
 * separate calls into the WebAssembly module, and PostgreSQL parses and plans the text every time
 * (~0.25 ms of a 1-row append's ~1 ms here). A registered statement instead goes as one buffer
 * to `execProtocol`: Close + Parse of the named statement on its first use on this PGlite instance
 * (and again after any error, which may have left it unparsed), then Bind, Describe, Execute, Sync.
 * PostgreSQL keeps the statement's plan; the exchange runs under PGlite's own query lock
 * (`runExclusive`) as `query` does.
 */
import type { QueryResult } from 'kysely';

/** The part of PGlite this path uses (absent on a structural fake: the usual `query` then). */
export interface PGliteProtocol {
  execProtocol(
    message: Uint8Array,
    options?: { throwOnError?: boolean },
  ): Promise<{ messages: readonly { name: string }[] }>;
  runExclusive?<T>(fn: () => Promise<T>): Promise<T>;
}

const encoder = new TextEncoder();

/** A growable buffer of protocol messages (big-endian lengths, NUL-terminated strings). */
class Writer {
  #bytes = new Uint8Array(1024);
  #length = 0;
  #start = 0;

  #room(n: number): void {
    if (this.#length + n <= this.#bytes.length) return;
    const next = new Uint8Array(Math.max(this.#bytes.length * 2, this.#length + n));
    next.set(this.#bytes.subarray(0, this.#length));
    this.#bytes = next;
  }
  begin(type: string): this {
    this.#room(5);
    this.#bytes[this.#length] = type.charCodeAt(0);
    this.#start = this.#length + 1;
    this.#length += 5;
    return this;
  }
  int16(n: number): this {
    this.#room(2);
    this.#bytes[this.#length++] = (n >>> 8) & 255;
    this.#bytes[this.#length++] = n & 255;
    return this;
  }
  int32(n: number): this {
    this.#room(4);
    new DataView(this.#bytes.buffer).setInt32(this.#length, n);
    this.#length += 4;
    return this;
  }
  raw(bytes: Uint8Array): this {
    this.#room(bytes.length);
    this.#bytes.set(bytes, this.#length);
    this.#length += bytes.length;
    return this;
  }
  cstring(s: string): this {
    return this.raw(encoder.encode(s)).raw(ZERO);
  }
  end(): this {
    new DataView(this.#bytes.buffer).setInt32(this.#start, this.#length - this.#start);
    return this;
  }
  done(): Uint8Array {
    return this.#bytes.subarray(0, this.#length);
  }
}

const ZERO = new Uint8Array(1);

/** The messages of one exchange: [Close + Parse,] Bind, Describe portal, Execute, Sync. */
function encodeExecute(name: string, parseText: string | undefined, values: readonly (string | null)[]) {
  const w = new Writer();
  if (parseText !== undefined) {
    w.begin('C').raw(encoder.encode('S')).cstring(name).end();
    w.begin('P').cstring(name).cstring(parseText).int16(0).end();
  }
  w.begin('B').cstring('').cstring(name).int16(0).int16(values.length);
  for (const v of values) {
    if (v === null) w.int32(-1);
    else {
      const bytes = encoder.encode(v);
      w.int32(bytes.length).raw(bytes);
    }
  }
  w.int16(0).end();
  w.begin('D').raw(encoder.encode('P')).cstring('').end();
  w.begin('E').cstring('').int32(0).end();
  w.begin('S').end();
  return w.done();
}

interface Field {
  name: string;
  dataTypeID: number;
}

/** A text-format column value: booleans, 2- and 4-byte integers decoded, anything else as text. */
function decode(value: string | null, type: number): unknown {
  if (value === null) return null;
  if (type === 16) return value === 't';
  if (type === 21 || type === 23) return Number(value);
  return value;
}

/** The rows of an exchange's messages (RowDescription, then DataRows). */
function rowsOf<R>(messages: readonly { name: string }[]): QueryResult<R> {
  let fields: readonly Field[] = [];
  const rows: R[] = [];
  for (const m of messages) {
    if (m.name === 'rowDescription') fields = (m as unknown as { fields: Field[] }).fields;
    else if (m.name === 'dataRow') {
      const values = (m as unknown as { fields: (string | null)[] }).fields;
      const row: Record<string, unknown> = {};
      for (let i = 0; i < fields.length; i++) {
        const f = fields[i] as Field;
        row[f.name] = decode(values[i] ?? null, f.dataTypeID);
      }
      rows.push(row as R);
    }
  }
  return { rows };
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
  values: readonly (string | null)[],
): Promise<QueryResult<R>> {
  const exchange = (parse: boolean) => {
    const message = encodeExecute(name, parse ? text : undefined, values);
    const run = () => client.execProtocol(message, { throwOnError: true });
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
  return rowsOf<R>(result.messages);
}
