/**
 * The fast paths of ./fast-parse and `parseClaims` agree with the schemas they stand in for:
 * whatever a fast path accepts, the schema accepts with the same output (same JSON, same key
 * order); on well-formed values of the kind the protocol sends the fast path applies; anything
 * else goes to the schema (so every refusal is the schema's own).
 */

import { createHash } from 'node:crypto';
import {
  CLASSIFICATION_LEVELS,
  canonicalJson,
  EXCHANGE_TYPES,
  MESSAGE_TYPES,
  newId,
  REPLY_POLICIES,
} from '@agentgov/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claimsJson, messageJson } from '../src/claims-json';
import {
  AI_DISCLOSURE_LABEL,
  contentDigest,
  EnvelopeClaimsSchema,
  fastClaims,
  parseClaims,
} from '../src/envelope';
import { fastMessage, parseMessage } from '../src/fast-parse';
import { ExchangeMessageSchema } from '../src/message';

/** A string without lone surrogates (what canonical JSON can write); anything else passes. */
const wellFormed = (t: unknown) =>
  typeof t !== 'string' || (t as string & { isWellFormed(): boolean }).isWellFormed();

const ascii = (min: number, max: number) => fc.string({ minLength: min, maxLength: max });
/** Any string, including astral characters and lone surrogates, around the length limits. */
const anyString = (max: number) =>
  fc.oneof(
    fc.string({ unit: 'binary', maxLength: 24 }),
    fc.string({ unit: 'grapheme', maxLength: 24 }),
    fc.string({ minLength: Math.max(0, max - 2), maxLength: max + 2 }),
    fc.constant(''),
  );
const level = fc.constantFrom(...CLASSIFICATION_LEVELS);

const validItem = fc.record({
  source: ascii(1, 12),
  field: ascii(1, 12),
  classification: level,
  value: fc.jsonValue(),
});
const validMessage = fc.record(
  {
    text: ascii(0, 40),
    items: fc.array(validItem, { maxLength: 6 }),
    commitment: fc.record({ action: ascii(1, 12), detail: ascii(0, 20) }, { requiredKeys: ['action'] }),
  },
  { requiredKeys: ['text', 'items'] },
);

const validClaims = fc.record(
  {
    envelope: fc.record({
      protocolVersion: fc.constant('1.0'),
      messageType: fc.constantFrom(...MESSAGE_TYPES),
      replyPolicy: fc.constantFrom(...REPLY_POLICIES),
      exchangeId: fc.constant(null).map(() => newId()),
      currentRound: fc.nat(10),
      maxRounds: fc.integer({ min: 1, max: 10 }),
      classificationLevel: level,
      aiDisclosureLabel: fc.constant(AI_DISCLOSURE_LABEL),
    }),
    kind: fc.constantFrom('query', 'reply', 'collect'),
    final: fc.boolean(),
    exchangeType: fc.constantFrom(...EXCHANGE_TYPES),
    conversationId: ascii(1, 40),
    from: fc.record({
      tenantId: ascii(1, 10),
      agentId: ascii(1, 10),
      userId: ascii(1, 10),
      orgUnit: ascii(1, 10),
    }),
    to: fc.record({ tenantId: ascii(1, 10), agentId: ascii(1, 10) }),
    contextId: ascii(1, 40),
    digest: fc.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    accepts: level,
    approvalId: ascii(1, 40),
    jti: fc.constant(null).map(() => newId()),
    iat: fc.integer({ min: 0, max: 2 ** 40 }),
    exp: fc.integer({ min: 0, max: 2 ** 40 }),
  },
  {
    requiredKeys: [
      'envelope',
      'kind',
      'final',
      'exchangeType',
      'conversationId',
      'from',
      'to',
      'contextId',
      'digest',
      'accepts',
      'jti',
      'iat',
      'exp',
    ],
  },
);

/** A replacement for one member: anything JSON (or JS) may hold, near-misses included. */
const junk = fc.oneof(
  fc.anything(),
  anyString(260),
  fc.constantFrom(
    undefined,
    null,
    -0,
    1.5,
    Number.NaN,
    2 ** 53,
    -1,
    0,
    '00000000-0000-0000-0000-000000000000',
    'ABCDEF01-2345-4678-89AB-CDEF01234567',
    'not-a-uuid',
    [],
    {},
    Object.create(null),
  ),
);

/** Paths to every member of a nested plain value (arrays by index). */
function paths(v: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (typeof v !== 'object' || v === null || prefix.length > 4) return [];
  const out: (string | number)[][] = [];
  for (const [k, child] of Object.entries(v)) {
    if (k === '__proto__') continue; // added as an own member, never walked through
    // An 'extra' mutation may give an array a non-index key: only index keys become numbers.
    const p = [...prefix, Array.isArray(v) && /^\d+$/.test(k) ? Number(k) : k];
    out.push(p, ...paths(child, p));
  }
  return out;
}

type Mutation = { kind: 'set' | 'delete' | 'extra'; at: number; value: unknown; key: string };
const mutation = fc.record({
  kind: fc.constantFrom('set', 'delete', 'extra') as fc.Arbitrary<Mutation['kind']>,
  at: fc.nat(),
  value: junk,
  key: fc.oneof(fc.constantFrom('__proto__', 'constructor', 'value', 'extra'), fc.string({ maxLength: 6 })),
});

/**
 * A deep copy keeping prototypes (null included) and own keys (an own `__proto__` too). Values
 * fast-check generated are copied before they are put in a tree that later mutations change:
 * fast-check hands the same instances to the next runs while it shrinks, and a value changed in
 * place there could come back holding itself (a cycle no schema input has).
 */
function copy(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  const out: object = Array.isArray(v) ? new Array(v.length) : Object.create(Object.getPrototypeOf(v));
  for (const k of Object.keys(v)) {
    Object.defineProperty(out, k, {
      value: copy((v as Record<string, unknown>)[k]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** `base` (deep-copied) with the mutations applied at paths chosen among its members. */
function mutate(base: unknown, mutations: Mutation[]): unknown {
  const root = { v: copy(base) };
  for (const m of mutations) {
    const all: (string | number)[][] = [[], ...paths(root.v)].map((p) => ['v', ...p]);
    const path = all[m.at % all.length] as (string | number)[];
    const key = path[path.length - 1] as string | number;
    let parent: Record<string | number, unknown> = root;
    for (const p of path.slice(0, -1)) parent = parent[p] as Record<string | number, unknown>;
    if (typeof parent !== 'object' || parent === null) continue;
    if (m.kind === 'set') parent[key] = copy(m.value);
    else if (m.kind === 'delete' && path.length > 1) delete parent[key];
    else {
      const target = parent[key];
      // An array's own `length` cannot hold what an 'extra' member would (defineProperty throws).
      if (typeof target === 'object' && target !== null && !(Array.isArray(target) && m.key === 'length'))
        Object.defineProperty(target, m.key, {
          value: copy(m.value),
          enumerable: true,
          writable: true,
          configurable: true,
        });
    }
  }
  return root.v;
}

/** Whatever `fast` accepts, `schema` accepts with the same output. */
function agrees(
  fast: (v: unknown) => unknown,
  schema: { safeParse(v: unknown): { success: boolean; data?: unknown } },
  value: unknown,
): boolean {
  const f = fast(value);
  if (f === undefined) return false;
  const s = schema.safeParse(value);
  expect(s.success).toBe(true);
  expect(f).toEqual(s.data);
  expect(JSON.stringify(f)).toBe(JSON.stringify(s.data));
  return true;
}

describe('fast paths agree with the schemas', () => {
  it('a well-formed message takes the fast path, with the schema’s output', () => {
    fc.assert(
      fc.property(validMessage, (m) => {
        expect(agrees(fastMessage, ExchangeMessageSchema, m)).toBe(true);
        const p = parseMessage(m);
        expect(p.success).toBe(true);
      }),
    );
  });

  it('a mutated message: accepted only when the schema accepts it the same way', () => {
    fc.assert(
      fc.property(validMessage, fc.array(mutation, { minLength: 1, maxLength: 3 }), (m, ms) => {
        const v = mutate(m, ms);
        agrees(fastMessage, ExchangeMessageSchema, v);
        // parseMessage answers as the schema does, fast path or not.
        const p = parseMessage(v);
        const s = ExchangeMessageSchema.safeParse(v);
        expect(p.success).toBe(s.success);
        if (p.success && s.success) expect(JSON.stringify(p.data)).toBe(JSON.stringify(s.data));
      }),
      { numRuns: 500 },
    );
  });

  it('well-formed claims take the fast path, with the schema’s output', () => {
    fc.assert(
      fc.property(validClaims, (c) => {
        expect(agrees(fastClaims, EnvelopeClaimsSchema, JSON.parse(JSON.stringify(c)))).toBe(true);
      }),
    );
  });

  it('mutated claims: accepted only when the schema accepts them the same way', () => {
    fc.assert(
      fc.property(validClaims, fc.array(mutation, { minLength: 1, maxLength: 3 }), (c, ms) => {
        const v = mutate(c, ms);
        agrees(fastClaims, EnvelopeClaimsSchema, v);
        const p = parseClaims(v);
        expect(p.success).toBe(EnvelopeClaimsSchema.safeParse(v).success);
      }),
      { numRuns: 500 },
    );
  });

  it('hand-picked near misses go to the schema', () => {
    const m = { text: 'hi', items: [{ source: 's', field: 'f', classification: 'public', value: 1 }] };
    expect(fastMessage(m)).toEqual(m);
    expect(fastMessage({ ...m, extra: 1 })).toBeUndefined();
    expect(fastMessage({ text: 'hi' })).toBeUndefined(); // items default: the schema adds it
    expect(fastMessage({ ...m, items: [{ ...m.items[0], value: undefined }] })).toBeUndefined();
    expect(fastMessage({ ...m, commitment: undefined })).toBeUndefined();
    expect(fastMessage(JSON.parse('{"text":"a","items":[],"__proto__":{}}'))).toBeUndefined();
    expect(fastMessage({ ...m, items: [{ ...m.items[0], classification: 'secret' }] })).toBeUndefined();
    // 16 UTF-16 units but 8 code points: the schema's count, so not the fast path.
    const claims = fc.sample(validClaims, { numRuns: 1, seed: 1 })[0] as Record<string, unknown>;
    expect(fastClaims(JSON.parse(JSON.stringify(claims)))).toBeDefined();
    expect(fastClaims({ ...claims, jti: '😀'.repeat(8) })).toBeUndefined();
    expect(EnvelopeClaimsSchema.safeParse({ ...claims, jti: '😀'.repeat(8) }).success).toBe(false);
    expect(fastClaims({ ...claims, final: undefined })).toBeUndefined();
  });
});

/** Whatever `claimsJson` writes is `canonicalJson`'s text of the same value. */
function writesCanonical(value: unknown): boolean {
  const fast = claimsJson(value as Record<string, unknown>);
  if (fast === undefined) return false;
  expect(fast).toBe(canonicalJson(value));
  return true;
}

describe('claimsJson: the canonical JSON of claims, written field by field', () => {
  it('well-formed claims (any strings) take it, with canonicalJson’s text', () => {
    fc.assert(
      fc.property(validClaims, anyString(40), anyString(40), (c, a, b) => {
        expect(writesCanonical(c)).toBe(true);
        // Any well-formed string (escapes, astral characters) is written as canonicalJson writes it.
        const odd = { ...c, conversationId: a, from: { ...c.from, orgUnit: b } };
        expect(writesCanonical(odd)).toBe(wellFormed(a) && wellFormed(b));
      }),
      { numRuns: 300 },
    );
  });

  it('mutated claims: written only as canonicalJson writes them', () => {
    fc.assert(
      fc.property(validClaims, fc.array(mutation, { minLength: 1, maxLength: 3 }), (c, ms) => {
        writesCanonical(mutate(c, ms));
      }),
      { numRuns: 500 },
    );
  });
});

describe('messageJson and contentDigest: the canonical JSON of message content, written field by field', () => {
  /** canonicalJson's text (or its throw) and the digest contentDigest had before (createHash). */
  const general = (v: unknown) => {
    try {
      const text = canonicalJson(v ?? null);
      return { text, digest: createHash('sha256').update(text).digest('base64url') };
    } catch (error) {
      return { error: (error as Error).message };
    }
  };
  const digestOf = (v: unknown) => {
    try {
      return contentDigest(v);
    } catch (error) {
      return { error: (error as Error).message };
    }
  };
  /** Whatever messageJson writes is canonicalJson's text; the digest is the general one either way. */
  const agreesWithGeneral = (v: unknown): boolean => {
    const g = general(v);
    const d = digestOf(v);
    expect(typeof d === 'string' ? d : JSON.stringify(d)).toBe(
      g.digest ?? JSON.stringify({ error: g.error }),
    );
    const fast = messageJson(v);
    if (fast === undefined) return false;
    expect(fast).toBe(g.text);
    return true;
  };
  const primitive = fc.oneof(anyString(20), fc.double(), fc.boolean(), fc.constant(null));
  const withPrimitives = validMessage.chain((m) =>
    fc
      .array(primitive, { minLength: m.items.length, maxLength: m.items.length })
      .map((vs) => ({ ...m, items: m.items.map((it, i) => ({ ...it, value: vs[i] })) })),
  );

  it('a message of the exchange shape (any strings, primitive values) takes it, with canonicalJson’s text', () => {
    fc.assert(
      fc.property(withPrimitives, anyString(30), (m, t) => {
        const odd = { ...m, text: t };
        const fast = agreesWithGeneral(odd);
        const finite = (v: unknown) => typeof v !== 'number' || Number.isFinite(v);
        expect(fast).toBe(wellFormed(t) && odd.items.every((it) => wellFormed(it.value) && finite(it.value)));
      }),
      { numRuns: 300 },
    );
  });

  it('mutated messages and any other content: the general digest', () => {
    fc.assert(
      fc.property(validMessage, fc.array(mutation, { minLength: 1, maxLength: 3 }), (m, ms) => {
        agreesWithGeneral(mutate(m, ms));
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.anything(), (v) => void agreesWithGeneral(v)),
      { numRuns: 300 },
    );
    for (const v of [undefined, null, { exchangeId: 'x', round: 1 }, { text: 'a', items: new Array(1) }])
      agreesWithGeneral(v);
  });
});
