/**
 * `pnpm bench interchange`: (1) governed information queries per second in-process (memory
 * stores, built-in engine, ES256 envelopes, audit on both sides) against calling the same answer
 * function directly; (2) filtering a payload of 1,000 classified items with
 * `filterByClassification` against a bare `Array.filter` on the level order; (3) a governed A2A
 * round trip on loopback (signed card cached, envelope signed and verified both ways, policy on
 * both sides, stores, audit on both sides; the governed server answers a query answered at once
 * with the SDK's own JSON-RPC response without running its handler) against the same round trip
 * through the SDK handler without governance: one JSON-RPC `SendMessage` over `fetch` to the SDK's
 * `DefaultRequestHandler` + `JsonRpcTransportHandler` on node:http, the same query and answer data
 * part. Client and server run in this process, so the CPU time per round trip in the notes
 * (`process.cpuUsage` over a fixed number of sequential round trips after the timed run and a
 * warm-up of `BENCH_WARMUP_ROUNDS` round trips of each case) counts both sides of both cases.
 * That second run interleaves the two cases in blocks, so its p50 and
 * CPU figures (and the ratio of its p50s) see the same machine load in both cases. The same
 * interleaved run measures the signature floor — the two ES256 signs and two verifies of a round
 * trip with node:crypto on cached KeyObjects, synchronously, over the signing inputs of a real
 * round trip — and the governed row's note gives what governance costs beyond it: governed CPU −
 * plain CPU − floor CPU per round trip.
 */
import { createPublicKey, KeyObject, sign, verify } from 'node:crypto';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { CLASSIFICATION_LEVELS, classificationOrder, newId, systemClock } from '@agentgov/core';
import { filterByClassification } from '@agentgov/interchange';
import { startA2AServer } from '@agentgov/interchange/a2a';
import { A2AHttpClient } from '../packages/interchange/src/a2a/http-client';
import { a2aNode, governedIdentity } from '../packages/interchange/test/a2a-harness';
import { answerWith, itemsAt, makeWorld } from '../packages/interchange/test/harness';
import { plainA2AServer } from '../packages/interchange/test/plain-a2a';
import { type BenchSuite, measure, percentile } from './lib';

const TIME = Number(process.env.BENCH_TIME_MS ?? 2000);
const ANSWER = itemsAt('public', 'internal');
const QUERY = {
  text: 'When is Bob free this week?',
  items: itemsAt('internal', 'confidential', 'restricted'),
};

const CPU_ROUNDS = Number(process.env.BENCH_CPU_ROUNDS ?? 300);
/**
 * Round trips of each A2A case, interleaved, between the timed run and the interleaved
 * measurement: the governed path runs far more code than the plain one, and its CPU per round
 * trip keeps falling for the first ~2,000 round trips as the JIT optimizes it (about 2.5x from
 * the first hundreds to the plateau): measured before that, it is the warm-up that is compared.
 */
const WARMUP_ROUNDS = Number(process.env.BENCH_WARMUP_ROUNDS ?? 2000);
const PLAIN_A2A = 'plain A2A SendMessage (same SDK handler, no governance)';
const PLAIN_A2A_DISPATCH =
  'plain A2A SendMessage on the governed transport’s HTTP client (undici Agent.dispatch, not fetch)';
const GOVERNED_A2A = 'governed A2A information query (ES256 both ways, policy, stores, audit)';
const FLOOR = 'signature floor: 2 ES256 signs + 2 verifies (node:crypto, cached KeyObjects)';

/**
 * The signature floor of one governed round trip: each side signs its envelope and verifies the
 * other's, ES256 with node:crypto on KeyObjects converted once, synchronously, over the signing
 * inputs (`header.payload`) of the query and the reply of a real round trip.
 */
function signatureFloor(
  keys: { alice: CryptoKey; bob: CryptoKey },
  jws: { query: string; reply: string },
): () => Promise<void> {
  const privateA = KeyObject.from(keys.alice);
  const privateB = KeyObject.from(keys.bob);
  const publicA = createPublicKey(privateA);
  const publicB = createPublicKey(privateB);
  const input = (j: string) => Buffer.from(j.slice(0, j.lastIndexOf('.')));
  const query = input(jws.query);
  const reply = input(jws.reply);
  const opts = (key: KeyObject) => ({ key, dsaEncoding: 'ieee-p1363' as const });
  return async () => {
    const q = sign('sha256', query, opts(privateA));
    if (!verify('sha256', query, opts(publicA), q)) throw new Error('floor: query signature');
    const r = sign('sha256', reply, opts(privateB));
    if (!verify('sha256', reply, opts(publicB), r)) throw new Error('floor: reply signature');
  };
}

/**
 * The signatures as a round trip pays for them: node:crypto's `sign` and `verify` wrapped (the
 * CommonJS object, then `syncBuiltinESMExports`, so the ES module bindings that `jws.ts` imports
 * call the wrappers too), their wall time summed while `run` awaits the calls it is given. Both
 * are synchronous and CPU-bound, so that time is their CPU time. Run inside a round trip they cost
 * more than in the floor's tight loop: between them the round trip's other work pushes their
 * tables (P-256's precomputed multiples of the generator, ~150 KB) out of the CPU caches.
 */
function signatureMeter(): { run(fn: () => Promise<void>, n: number): Promise<number>; restore(): void } {
  const crypto = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  const original = { sign: crypto.sign, verify: crypto.verify };
  let spent = 0;
  let calls = 0;
  const timed =
    <F extends (...args: never[]) => unknown>(fn: F) =>
    (...args: Parameters<F>): ReturnType<F> => {
      const t = performance.now();
      try {
        return fn(...args) as ReturnType<F>;
      } finally {
        spent += performance.now() - t;
        calls++;
      }
    };
  crypto.sign = timed(original.sign) as typeof crypto.sign;
  crypto.verify = timed(original.verify) as typeof crypto.verify;
  syncBuiltinESMExports();
  return {
    /** ms of signing and verifying per call of `fn`, over `n` calls; refuses a count other than 4 a call. */
    async run(fn, n) {
      spent = 0;
      calls = 0;
      for (let i = 0; i < n; i++) await fn();
      if (calls !== 4 * n)
        throw new Error(`expected 2 signs + 2 verifies a round trip, counted ${calls / n}`);
      return spent / n;
    },
    restore() {
      crypto.sign = original.sign;
      crypto.verify = original.verify;
      syncBuiltinESMExports();
    },
  };
}

/**
 * Each case run `n` times in interleaved blocks (case A, case B, A, B…), so that both see the same
 * machine load: the process CPU time (user + system) per call, ms, as the median of the blocks,
 * and the median wall time of one call over all of them.
 */
async function interleaved(
  cases: Record<string, () => Promise<void>>,
  n: number,
  block = 25,
): Promise<Record<string, { cpuMs: number; p50Ms: number }>> {
  const cpu: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  const wall: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (let done = 0; done < n; done += block) {
    const size = Math.min(block, n - done);
    for (const [name, fn] of Object.entries(cases)) {
      const start = process.cpuUsage();
      for (let i = 0; i < size; i++) {
        const t = performance.now();
        await fn();
        wall[name]?.push(performance.now() - t);
      }
      const used = process.cpuUsage(start);
      cpu[name]?.push((used.user + used.system) / 1000 / size);
    }
  }
  return Object.fromEntries(
    Object.keys(cases).map((name) => [
      name,
      { cpuMs: percentile(cpu[name] ?? [], 50), p50Ms: percentile(wall[name] ?? [], 50) },
    ]),
  );
}

const inProcess: BenchSuite = {
  name: 'interchange: information query in-process (memory stores, built-in engine)',
  baseline: 'answer function called directly',
  async run() {
    const w = await makeWorld({ clock: systemClock, answer: { bob: answerWith(ANSWER) } });
    const answer = answerWith(ANSWER);
    return measure(
      {
        'answer function called directly': () =>
          answer({
            exchangeId: '',
            round: 1,
            exchangeType: 'information_query',
            from: { agentId: 'a', userId: 'u', orgUnit: 'eng' },
            text: QUERY.text,
            items: QUERY.items,
            ceiling: 'internal',
          }),
        'governed information query': async () => {
          const r = await w.nodes.alice.query({ to: 'agent-bob', message: QUERY });
          if (r.isErr()) throw r.error;
        },
      },
      { time: TIME, unit: 'query' },
    );
  },
};

const filtering: BenchSuite = {
  name: 'interchange: filtering a payload of 1,000 classified items',
  baseline: 'Array.filter on the level order',
  async run() {
    const items = Array.from({ length: 1000 }, (_, i) => ({
      source: ['mail', 'drive', 'calendar'][i % 3] as string,
      field: `field-${i}`,
      classification: CLASSIFICATION_LEVELS[i % 4] as (typeof CLASSIFICATION_LEVELS)[number],
      value: i,
    }));
    const limit = classificationOrder('internal');
    return measure(
      {
        'Array.filter on the level order': () =>
          items.filter((i) => classificationOrder(i.classification) <= limit),
        'filterByClassification (kept + withheld with reasons)': () =>
          filterByClassification(items, 'internal', (i) => `${i.source}.${i.field}`),
      },
      { time: TIME, unit: 'payload' },
    );
  },
};

const a2a: BenchSuite = {
  name: 'interchange: A2A round trip on loopback (one request at a time)',
  baseline: PLAIN_A2A,
  async run() {
    const w = await makeWorld({ stores: 'separate', clock: systemClock });
    const urls = new Map<string, string>();
    const node = (name: 'alice' | 'bob') =>
      a2aNode(w, name, {
        resolve: (id) => urls.get(id),
        identityConfig: { ...governedIdentity(), supportedExchangeTypes: ['information_query'] },
        answer: answerWith(ANSWER),
      });
    const alice = node('alice');
    const bob = node('bob');
    const governed = await startA2AServer({ node: bob, signingKey: w.keyPairs.bob.signingKey, keys: w.keys });
    urls.set('agent-bob', governed.url);
    const plain = await plainA2AServer({ text: 'answer', items: ANSWER });
    const body = () =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: {
          message: {
            messageId: newId(),
            contextId: newId(),
            role: 'ROLE_USER',
            parts: [{ data: QUERY, mediaType: 'application/json' }],
          },
        },
      });
    // The governed transport's own HTTP client, for the second plain case: what the plain round
    // trip costs without `fetch`'s WHATWG layers, so that the governed row can be read against both.
    const http = new A2AHttpClient({});
    const headers = { 'content-type': 'application/json', 'a2a-version': '1.0' };
    const cases: Record<string, () => Promise<void>> = {
      [PLAIN_A2A]: async () => {
        const res = await fetch(plain.url, { method: 'POST', headers, body: body() });
        const json = (await res.json()) as { result?: unknown };
        if (!json.result) throw new Error(JSON.stringify(json));
      },
      [PLAIN_A2A_DISPATCH]: async () => {
        const json = (await http.call(plain.url, { method: 'POST', headers, body: body() }, (res) =>
          res.json(),
        )) as { result?: unknown };
        if (!json.result) throw new Error(JSON.stringify(json));
      },
      [GOVERNED_A2A]: async () => {
        const r = await alice.query({ to: 'agent-bob', message: QUERY });
        if (r.isErr()) throw r.error;
      },
    };
    try {
      const rows = await measure(cases, { time: TIME, unit: 'round trip' });
      // The signing inputs of a real round trip: the query and the reply of the last exchange.
      const last = await alice.query({ to: 'agent-bob', message: QUERY });
      if (last.isErr()) throw last.error;
      const [query, reply] = (last.value.exchange.transcript as { kind: string; jws?: string }[])
        .filter((t) => t.kind === 'message' || t.kind === 'reply')
        .map((t) => t.jws as string);
      const floor = signatureFloor(
        { alice: w.keyPairs.alice.signingKey.privateKey, bob: w.keyPairs.bob.signingKey.privateKey },
        { query: query as string, reply: reply as string },
      );
      // After the timed run and a warm-up to the JIT's plateau: every case again in interleaved
      // blocks (same load for all).
      for (let i = 0; i < WARMUP_ROUNDS; i++) for (const fn of Object.values(cases)) await fn();
      const after = await interleaved({ ...cases, [FLOOR]: floor }, CPU_ROUNDS);
      // Then the same governed round trips again with their signatures timed where they run.
      const meter = signatureMeter();
      let inSituMs: number;
      try {
        inSituMs = await meter.run(cases[GOVERNED_A2A] as () => Promise<void>, CPU_ROUNDS);
      } finally {
        meter.restore();
      }
      const base = after[PLAIN_A2A];
      const sameClient = after[PLAIN_A2A_DISPATCH];
      const sig = after[FLOOR];
      for (const row of rows) {
        const m = after[row.name];
        if (!m || !base || !sig) continue;
        row.note = `${row.note}; after ${WARMUP_ROUNDS} warm-up round trips each, interleaved (${CPU_ROUNDS} each, blocks of 25): p50 ${m.p50Ms.toFixed(2)} ms (${(base.p50Ms / m.p50Ms).toFixed(2)}x), CPU ${m.cpuMs.toFixed(2)} ms per round trip`;
        if (row.name === GOVERNED_A2A) {
          row.note = `${row.note}; signature floor ${sig.cpuMs.toFixed(3)} ms CPU; beyond the floor (governed − plain − floor) ${(m.cpuMs - base.cpuMs - sig.cpuMs).toFixed(3)} ms CPU per round trip`;
          row.note = `${row.note}; the same 2 signs + 2 verifies timed inside the round trips ${inSituMs.toFixed(3)} ms (caches cold), beyond those ${(m.cpuMs - base.cpuMs - inSituMs).toFixed(3)} ms CPU`;
          if (sameClient)
            row.note = `${row.note}; against the plain case on the same HTTP client: p50 ${(sameClient.p50Ms / m.p50Ms).toFixed(2)}x, beyond the floor ${(m.cpuMs - sameClient.cpuMs - sig.cpuMs).toFixed(3)} ms CPU`;
        }
      }
      return rows;
    } finally {
      await http.close();
      await governed.close();
      await plain.close();
    }
  },
};

export default [inProcess, filtering, a2a];
