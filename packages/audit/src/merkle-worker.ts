/**
 * The verifier's Merkle tree on a second thread (node:worker_threads): while the main thread
 * checks the hash chain over the stored leaves, a worker recomputes the RFC 9162 tree over the
 * record hashes the main thread has checked, and answers the roots at the checkpoints' tree sizes
 * and at the end. The hashes cross as bytes — 32 per record, written from their hex into a page
 * buffer whose ArrayBuffer is transferred (no copy, no structured clone per record).
 *
 * The worker is started from source text (`eval`), not from a file: the same code runs from the
 * package's sources (vitest, tsx) and from its ESM and CJS builds, with no path to resolve. One
 * idle worker is kept (unref'd: it never keeps the process alive) for the next verify.
 *
 * Fail closed: a worker that errors, exits or answers something malformed makes `finish` reject;
 * `verifyTenant` then verifies the range again on one thread (the report is the single-threaded
 * one, never a pass the worker could not vouch for).
 */
import { Worker } from 'node:worker_threads';

/**
 * The worker's code: the streaming accumulator of `MerkleAccumulator` (merkle.ts) over 32-byte
 * hashes. Messages in: `{ sizes, progress }` (a new run: the tree sizes to answer roots at, and a
 * shared counter of the pages hashed), `{ bytes, count }` (the next `count` record hashes),
 * `{ end: true }`. Out: `{ roots, root, size }` or
 * `{ error }`.
 */
const WORKER_SOURCE = `
'use strict';
const { parentPort } = require('node:worker_threads');
const { hash } = require('node:crypto');
const EMPTY = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const leaf = Buffer.alloc(33);
const node = Buffer.alloc(65, 1);
let hashes = [];
let sizes = [];
let size = 0;
let wanted = new Set();
let roots = [];
let progress;
function rootHex() {
  if (hashes.length === 0) return EMPTY;
  let r = hashes[hashes.length - 1];
  for (let i = hashes.length - 2; i >= 0; i--) {
    node.write(hashes[i] + r, 1, 64, 'latin1');
    r = hash('sha256', node, 'binary');
  }
  return Buffer.from(r, 'latin1').toString('hex');
}
function push(bytes, at) {
  bytes.copy(leaf, 1, at, at + 32);
  let h = hash('sha256', leaf, 'binary');
  let s = 1;
  while (sizes.length > 0 && sizes[sizes.length - 1] === s) {
    sizes.pop();
    node.write(hashes.pop() + h, 1, 64, 'latin1');
    h = hash('sha256', node, 'binary');
    s *= 2;
  }
  hashes.push(h);
  sizes.push(s);
  size++;
  if (wanted.has(size)) roots.push([size, rootHex()]);
}
parentPort.on('message', (m) => {
  try {
    if (m.sizes) {
      hashes = []; sizes = []; size = 0; roots = []; wanted = new Set(m.sizes);
      progress = new Int32Array(m.progress);
    } else if (m.bytes) {
      const bytes = Buffer.from(m.bytes, 0, m.count * 32);
      for (let at = 0; at < bytes.length; at += 32) push(bytes, at);
      Atomics.add(progress, 0, 1);
      Atomics.notify(progress, 0);
    } else if (m.end) {
      parentPort.postMessage({ roots, root: rootHex(), size });
    }
  } catch (error) {
    parentPort.postMessage({ error: String((error && error.stack) || error) });
  }
});
`;

/** What the worker answers at the end of a run. */
export interface MerkleResult {
  /** Roots (hex) at the tree sizes asked for that were reached. */
  roots: Map<number, string>;
  /** Root (hex) over every hash pushed. */
  root: string;
  /** Hashes pushed. */
  size: number;
}

/**
 * Internal knobs (not exported from the package): ranges of fewer records than `threshold` stay on
 * one thread; `spawn` starts a worker (tests swap in one that fails).
 */
export const merkleWorkers = {
  /** Measured: see the README's verification section. */
  threshold: 20_000,
  /** Hashes per transferred page (32 bytes each). */
  page: 4096,
  /** Pages sent and not yet hashed before the verifier waits for the worker (bounded memory). */
  inflight: 16,
  /** A worker that hashes no page (or does not answer) for this long has failed (ms). */
  stall: 60_000,
  spawn: (): Worker => new Worker(WORKER_SOURCE, { eval: true }),
};

let idle: Worker | undefined;

/** `Atomics.waitAsync` (Node ≥ 16; typed in lib ES2024, this package compiles against ES2023). */
type WaitAsync = (
  array: Int32Array,
  index: number,
  value: number,
  timeout?: number,
) => { async: false; value: 'not-equal' | 'timed-out' } | { async: true; value: Promise<'ok' | 'timed-out'> };
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync.bind(Atomics);

/** Stops the idle worker, if any (tests that swap `merkleWorkers.spawn`). */
export async function stopIdleMerkleWorker(): Promise<void> {
  const worker = idle;
  idle = undefined;
  await worker?.terminate();
}

/** A new worker; one that exits while idle is forgotten (never handed a run it cannot answer). */
function spawn(): Worker {
  const worker = merkleWorkers.spawn();
  worker.on('exit', () => {
    if (idle === worker) idle = undefined;
  });
  worker.on('error', () => undefined); // an idle worker's error is its exit (a run listens itself)
  return worker;
}

/** One run of the tree on a worker: push the checked hashes in order, then `finish`. */
export class MerkleOffload {
  readonly #worker: Worker;
  readonly #size = Math.max(1, Math.floor(merkleWorkers.page));
  #page = new ArrayBuffer(this.#size * 32);
  #view = Buffer.from(this.#page);
  #count = 0;
  #pushed = 0;
  #failure: Error | undefined;
  /** Pages the worker has hashed (it counts them up), and pages sent. */
  readonly #progress = new Int32Array(new SharedArrayBuffer(4));
  #sent = 0;
  #done: Promise<MerkleResult>;
  #settled = false;

  /** Starts a run (on the idle worker, else a new one) answering roots at `sizes`. */
  constructor(sizes: readonly number[]) {
    const worker = idle ?? spawn();
    idle = undefined;
    this.#worker = worker;
    worker.ref();
    this.#done = new Promise<MerkleResult>((resolve, reject) => {
      const fail = (error: Error) => {
        this.#failure ??= error;
        cleanup();
        reject(this.#failure);
      };
      const onError = (error: unknown) => fail(error instanceof Error ? error : new Error(String(error)));
      const onExit = (code: number) => fail(new Error(`the Merkle worker exited (code ${code})`));
      const onMessage = (message: unknown) => {
        const result = parseResult(message);
        if (typeof result === 'string') return fail(new Error(`the Merkle worker failed: ${result}`));
        cleanup();
        resolve(result);
      };
      const cleanup = () => {
        worker.off('error', onError).off('exit', onExit).off('message', onMessage);
      };
      worker.on('error', onError).on('exit', onExit).on('message', onMessage);
    });
    this.#done.catch(() => undefined); // observed by finish(); never an unhandled rejection
    try {
      worker.postMessage({ sizes: [...sizes], progress: this.#progress.buffer });
    } catch (error) {
      this.#failure = error instanceof Error ? error : new Error(String(error));
    }
  }

  /** Appends a checked record hash (64 lowercase hex digits). */
  push(recordHash: string): void {
    if (this.#view.write(recordHash, this.#count * 32, 32, 'hex') !== 32)
      this.#failure ??= new Error('a record hash is not 64 hex digits');
    this.#pushed++;
    if (++this.#count === this.#size) this.#flush();
  }

  #flush(): void {
    if (this.#count === 0) return;
    if (!this.#failure) {
      const bytes = this.#page;
      try {
        this.#worker.postMessage({ bytes, count: this.#count }, [bytes]);
        this.#sent++;
      } catch (error) {
        this.#failure ??= error instanceof Error ? error : new Error(String(error));
      }
      this.#page = new ArrayBuffer(this.#size * 32);
      this.#view = Buffer.from(this.#page);
    }
    this.#count = 0;
  }

  /**
   * When more than `inflight` pages wait for the worker: a promise that resolves once they are
   * no more (so the pages queued for a slow worker stay bounded), else undefined (nothing to wait
   * for). A worker that fails meanwhile, or hashes no page for `stall` ms, has failed: nothing
   * more is sent, and `finish` rejects.
   */
  backlog(): Promise<void> | undefined {
    if (this.#failure || this.#sent - Atomics.load(this.#progress, 0) <= merkleWorkers.inflight) return;
    return this.#drain();
  }

  async #drain(): Promise<void> {
    const failed = this.#done.then(
      () => 'answered' as const,
      () => 'failed' as const,
    );
    while (!this.#failure) {
      const done = Atomics.load(this.#progress, 0);
      if (this.#sent - done <= merkleWorkers.inflight) return;
      const wait = waitAsync(this.#progress, 0, done, merkleWorkers.stall);
      const outcome = wait.async ? await Promise.race([wait.value, failed]) : wait.value;
      if (outcome === 'timed-out') this.#failure ??= new Error('the Merkle worker stalled');
      else if (outcome === 'failed' || outcome === 'answered') return; // finish() says why
    }
  }

  /** The worker's answer; rejects when it hashes no page and answers nothing for `stall` ms. */
  #answer(): Promise<MerkleResult> {
    let timer: ReturnType<typeof setInterval> | undefined;
    const stalled = new Promise<never>((_, reject) => {
      let seen = -1;
      timer = setInterval(() => {
        const now = Atomics.load(this.#progress, 0);
        if (now === seen) reject(new Error('the Merkle worker stalled'));
        seen = now;
      }, merkleWorkers.stall);
    });
    stalled.catch(() => undefined);
    return Promise.race([this.#done, stalled]).finally(() => clearInterval(timer));
  }

  /**
   * The roots, once the worker has hashed everything pushed; rejects (fail closed) when the worker
   * failed or answered for another number of hashes. The worker is kept for the next run only
   * after a clean answer.
   */
  async finish(): Promise<MerkleResult> {
    this.#flush();
    if (!this.#failure) this.#worker.postMessage({ end: true });
    try {
      if (this.#failure) throw this.#failure;
      const result = await this.#answer();
      if (result.size !== this.#pushed)
        throw new Error(`the Merkle worker hashed ${result.size} of ${this.#pushed} records`);
      this.#settled = true;
      this.#release();
      return result;
    } finally {
      if (!this.#settled) this.abort();
    }
  }

  /** Ends the run without an answer (a break, an abort, a failure): the worker is stopped. */
  abort(): void {
    if (this.#settled) return;
    this.#settled = true;
    void this.#worker.terminate().catch(() => undefined);
  }

  #release(): void {
    this.#worker.unref();
    if (idle) void this.#worker.terminate().catch(() => undefined);
    else idle = this.#worker;
  }
}

/** The worker's answer, or what is wrong with it (a string). */
function parseResult(message: unknown): MerkleResult | string {
  if (message === null || typeof message !== 'object') return 'no answer';
  const m = message as { error?: unknown; roots?: unknown; root?: unknown; size?: unknown };
  if (m.error !== undefined) return String(m.error);
  if (!Array.isArray(m.roots) || typeof m.root !== 'string' || typeof m.size !== 'number')
    return 'a malformed answer';
  const roots = new Map<number, string>();
  for (const pair of m.roots as unknown[]) {
    if (!Array.isArray(pair) || typeof pair[0] !== 'number' || typeof pair[1] !== 'string')
      return 'a malformed root';
    roots.set(pair[0], pair[1]);
  }
  return { roots, root: m.root, size: m.size };
}
