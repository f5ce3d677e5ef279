/**
 * The machinery shared by every conformance suite: a fresh store per test from a factory, cleanup
 * after it, and explicit, reasoned skips (CONVENTIONS.md #6).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

/** Creates a fresh, empty store for one test; `cleanup` runs after the test (drop schema, close pool…). */
export type StoreFactory<S> = () => Promise<{ store: S; cleanup?: () => Promise<void> }>;

export interface ConformanceOptions<C extends string> {
  /**
   * Cases this backend cannot support, each with the reason. A skipped case shows up as
   * `it.skip('<case> — skipped: <reason>')`, so the gap stays visible in every run.
   */
  skip?: Partial<Record<C, string>>;
}

/** One case of a suite: receives the fresh store of the test. */
export type ConformanceCase<S> = (store: S) => Promise<void>;

/**
 * A `describeXConformance(name, factory, options)` function. Its `cases` table is exposed too, so a
 * test can run one case directly (for example against a deliberately broken store).
 */
export interface ConformanceSuite<S, C extends string> {
  (name: string, factory: StoreFactory<S>, options?: ConformanceOptions<C>): void;
  readonly port: string;
  readonly cases: Readonly<Record<C, ConformanceCase<S>>>;
}

/** Builds a `describeXConformance(name, factory, options)` function from a table of cases. */
export function defineConformanceSuite<S, C extends string>(
  port: string,
  cases: Readonly<Record<C, ConformanceCase<S>>>,
): ConformanceSuite<S, C> {
  const describeSuite = (name: string, factory: StoreFactory<S>, options: ConformanceOptions<C> = {}) => {
    const known = new Set<string>(Object.keys(cases));
    for (const key of Object.keys(options.skip ?? {})) {
      if (!known.has(key)) throw new Error(`${port} conformance: unknown case in skip: ${key}`);
    }
    describe(`${port} conformance: ${name}`, () => {
      let current: { store: S; cleanup?: () => Promise<void> } | undefined;
      beforeEach(async () => {
        current = await factory();
      });
      afterEach(async () => {
        const c = current;
        current = undefined;
        await c?.cleanup?.();
      });
      for (const caseName of Object.keys(cases) as C[]) {
        const reason = options.skip?.[caseName];
        if (reason !== undefined) {
          it.skip(`${caseName} — skipped: ${reason}`, () => {});
          continue;
        }
        const body = cases[caseName];
        it(caseName, async () => {
          if (!current) throw new Error('the store factory did not produce a store');
          await body(current.store);
        });
      }
    });
  };
  return Object.assign(describeSuite, { port, cases });
}

/** Asserts that a promise (or async function) rejects, whatever the error. */
export async function expectRejects(work: Promise<unknown> | (() => Promise<unknown>)): Promise<void> {
  let promise: Promise<unknown>;
  try {
    promise = typeof work === 'function' ? work() : work;
  } catch {
    return; // a synchronous throw counts as a rejection
  }
  await expect(promise).rejects.toBeDefined();
}

/** A deterministic permutation (so insertion order never matches the expected order by accident). */
export function shuffled<T>(items: readonly T[], seed = 7): T[] {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2147483648;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  // Make sure the order really changed when there is more than one item.
  if (out.length > 1 && out.every((x, i) => x === items[i])) out.reverse();
  return out;
}

/** Strings that stress encodings: accents, CJK, emoji (astral), RTL, combining marks, quotes, newlines. */
export const UNICODE_SAMPLES = [
  'Zoë Ñúñez',
  '東京の会議室',
  'emoji 🚀🔒👩🏽‍💻',
  'עברית مرحبا',
  'e\u0301 combining',
  `quotes ' " \\ backslash\nnewline\ttab`,
] as const;

/** A string of exactly 255 characters (2-byte characters in UTF-8: catches byte-length limits). */
export const STRING_255 = 'é'.repeat(255);

/** How a shared case reaches a store's records: write one, and read back the one with its key. */
export interface RecordAccess<S, T> {
  write(store: S, record: T): Promise<unknown>;
  read(store: S, record: T): Promise<T | undefined>;
}

/**
 * The shared "every field round-trips" case: writes each of `records()` (a rich one with every
 * optional field, unicode and maximal lengths, and a plain one), reads each back equal, and reads
 * nothing for `unknown()` (a record of the same tenant that was never written).
 */
export function roundTripCase<S, T>(
  access: RecordAccess<S, T>,
  records: () => readonly T[],
  unknown: () => T,
): ConformanceCase<S> {
  return async (store) => {
    const written = records();
    for (const r of written) await access.write(store, r);
    for (const r of written) expect(await access.read(store, r)).toEqual(r);
    expect(await access.read(store, unknown())).toBeUndefined();
  };
}

/**
 * The shared "a duplicate key throws and keeps the original" case: writes `make()`, expects the
 * write of `changed(original)` (same key, other values) to reject, and reads the original back;
 * `then` checks more (a count, a list) on the same store.
 */
export function duplicateKeyCase<S, T>(
  access: RecordAccess<S, T>,
  make: () => T,
  changed: (original: T) => T,
  then?: (store: S) => Promise<void>,
): ConformanceCase<S> {
  return async (store) => {
    const original = make();
    await access.write(store, original);
    await expectRejects(access.write(store, changed(original)));
    expect(await access.read(store, original)).toEqual(original);
    await then?.(store);
  };
}
