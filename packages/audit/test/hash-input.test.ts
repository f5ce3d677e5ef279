/**
 * The verifier's shortcuts give the very answers of the general path: the one-pass record hash
 * input equals the canonical JSON of the committed entry built by copying, for any entry and any
 * commitment paths; the byte-level Merkle accumulator equals the RFC 9162 root of the same hashes.
 */
import { createHash } from 'node:crypto';
import { AuditEntrySchema, isUlid } from '@agentgov/core';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  computeRecordHash,
  MerkleAccumulator,
  merkleRoot,
  recordHashInput,
} from '../src/index';
import { committedEntry } from '../src/records';
import { checkRecord } from '../src/verify-record';

const hex64 = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex'));
const key = fc.oneof(
  fc.constantFrom('userId', 'actionDetail', 'tenantId', 'id', 'nested', 'a', 'é', '\u20ac', ''),
  fc.string({ maxLength: 6 }),
);
const path = fc.oneof(
  fc.constantFrom(
    'userId',
    'actionDetail.initiatorUserId',
    'actionDetail.responderUserId',
    'actionDetail.createdBy',
    'modelUsed',
    'dataAccessed.0',
    'actionDetail.deep.er',
    'actionDetail',
    'a.b',
  ),
  fc.tuple(key, fc.option(key, { nil: undefined })).map(([a, b]) => (b === undefined ? a : `${a}.${b}`)),
);
const entry = fc.dictionary(
  key,
  fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.dictionary(key, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 })),
  { maxKeys: 8 },
);

/** The definition: the committed entry built by copying, then RFC 8785 of the whole record. */
const general = (r: { entry: unknown; seq: number; prevHash: string; commitments: Record<string, string> }) =>
  canonicalJson({
    commitments: r.commitments,
    entry: committedEntry(r.entry as never, r.commitments),
    prevHash: r.prevHash,
    seq: r.seq,
  });

describe('record hash input', () => {
  it('equals the general canonical JSON of the committed entry for any entry and commitment paths', () => {
    fc.assert(
      fc.property(
        entry,
        fc.dictionary(path, hex64, { maxKeys: 5 }),
        fc.nat(),
        hex64,
        (e, commitments, seq, prevHash) => {
          const record = { entry: e as never, seq, prevHash, commitments };
          expect(recordHashInput(record)).toBe(general(record));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('equals the general path and the canonicalize package for awkward keys and values', () => {
    // Keys that JSON.stringify orders by number, `__proto__`, keys already sorted or not; strings
    // with escapes, surrogate pairs, lone surrogates and a literal backslash-u; odd numbers.
    const awkwardKey = fc.oneof(
      key,
      fc.constantFrom(
        '0',
        '1',
        '9',
        '10',
        '01',
        '-1',
        '1.5',
        '__proto__',
        'constructor',
        'a\\ud800',
        'b\udc00',
        '\ud83d\ude00',
      ),
    );
    const leaf = fc.oneof(
      fc.constantFrom(
        '\ud800',
        'x\udfff',
        '\ud83d\ude00',
        '\\ud800',
        '\\',
        '"',
        '\u0000\u001f\u2028',
        -0,
        1e21,
        1e-7,
        0.1,
        Number.MAX_SAFE_INTEGER,
        Number.NaN,
        Number.POSITIVE_INFINITY,
        undefined,
        true,
        null,
      ),
      fc.string({ maxLength: 4, unit: 'binary' }),
      fc.double(),
    );
    const value = fc.letrec((tie) => ({
      v: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf,
        fc.array(tie('v'), { maxLength: 3 }),
        fc.dictionary(awkwardKey, tie('v'), { maxKeys: 4 }),
      ),
    })).v;
    const awkwardEntry = fc.dictionary(awkwardKey, value, { maxKeys: 8 });
    fc.assert(
      fc.property(
        awkwardEntry,
        fc.dictionary(path, hex64, { maxKeys: 4 }),
        fc.oneof(fc.nat(), fc.constantFrom(-0, 1e21, 0.5)),
        hex64,
        (e, commitments, seq, prevHash) => {
          const record = { entry: e as never, seq, prevHash, commitments };
          let expected: string | Error;
          try {
            expected = general(record);
          } catch (error) {
            expected = error as Error;
          }
          if (expected instanceof Error) expect(() => recordHashInput(record)).toThrow();
          else {
            expect(recordHashInput(record)).toBe(expected);
            expect(recordHashInput(record)).toBe(
              canonicalize({
                commitments,
                entry: committedEntry(e as never, commitments),
                prevHash,
                seq,
              }),
            );
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('takes records of the same shapes again and again without mixing them up', () => {
    // The key-order and commitment-plan caches: many shapes in turn, each compared with the definition.
    const shapes = Array.from({ length: 40 }, (_, i) => ({
      entry: Object.fromEntries(
        Array.from({ length: 1 + (i % 7) }, (_, k) => [
          `k${(i * 7 + k * 3) % 11}`,
          { [`n${i % 5}`]: k, m: [i] },
        ]),
      ),
      commitments: Object.fromEntries(
        Array.from({ length: i % 4 }, (_, k) => [k === 0 ? 'userId' : `k${k}.x${i % 3}`, 'ab'.repeat(32)]),
      ),
    }));
    for (let round = 0; round < 3; round++) {
      for (const [i, s] of shapes.entries()) {
        const record = {
          entry: s.entry as never,
          seq: i,
          prevHash: 'cd'.repeat(32),
          commitments: s.commitments,
        };
        expect(recordHashInput(record)).toBe(general(record));
      }
    }
  });

  it('throws, like the general path, for values with no canonical form', () => {
    const record = (detail: unknown) => ({
      entry: { userId: 'u', actionDetail: detail } as never,
      seq: 1,
      prevHash: '0'.repeat(64),
      commitments: { userId: 'c'.repeat(64) },
    });
    expect(() => recordHashInput(record({ x: Number.NaN }))).toThrow();
    expect(() => recordHashInput(record({ x: '\ud800' }))).toThrow();
    expect(recordHashInput(record({ when: new Date(0) }))).toBe(general(record({ when: new Date(0) })));
  });
});

describe('MerkleAccumulator', () => {
  it('has the RFC 9162 root of every prefix, also for malformed hex', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof({ weight: 9, arbitrary: hex64 }, { weight: 1, arbitrary: fc.string() }), {
          maxLength: 40,
        }),
        (hashes) => {
          const acc = new MerkleAccumulator();
          const leaves: string[] = [];
          for (const h of hashes) {
            acc.push(h);
            leaves.push(h);
            // merkleRoot refuses malformed leaves; the reference for them: SHA-256 over what push hashes.
            if (leaves.every((l) => /^[0-9a-f]{64}$/.test(l))) expect(acc.root()).toBe(merkleRoot(leaves));
          }
          expect(acc.size).toBe(hashes.length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('the root of one leaf is SHA-256(0x00 || hash bytes)', () => {
    const h = 'ab'.repeat(32);
    const acc = new MerkleAccumulator();
    acc.push(h);
    expect(acc.root()).toBe(
      createHash('sha256')
        .update(Buffer.concat([Buffer.from([0]), Buffer.from(h, 'hex')]))
        .digest('hex'),
    );
  });
});

describe('the verifier’s structural check of an entry', () => {
  const base = {
    id: '01ARZ3NDEKTSV4RRFFQ69G5FAV',
    tenantId: 't',
    userId: 'alice',
    timestamp: '2026-03-15T12:00:00.000Z',
    actionType: 'model_call',
    actionDetail: { prompt: 'x' },
    dataAccessed: [{ source: 'drive', classification: 'internal', purpose: 'answer' }],
    modelUsed: 'm',
    modelTokens: { input: 1, output: 2 },
    dataClassification: 'internal',
    policyApplied: 'p',
    policyResult: 'allow',
    policyReason: '',
    outcome: 'success',
    requestId: 'r',
  };
  const values = fc.oneof(
    fc.constantFrom(
      undefined,
      null,
      '',
      'x'.repeat(256),
      'model_call',
      'restricted',
      'deny',
      'error',
      '2026-02-29T00:00:00Z',
      '2028-02-29T00:00:00Z',
      '2026-01-31T23:59:59.123456Z',
      '2026-04-31T00:00:00Z',
      '2026-03-15T12:00:00+02:00',
      '2026-03-15 12:00:00Z',
      [],
      {},
      { input: -1, output: 0 },
      { input: 1.5, output: 0 },
      { input: 2 ** 60, output: 0 },
      [{ source: 's', classification: 'secret', purpose: 'p' }],
      [{ source: 's', classification: 'public', purpose: 'p', extra: 1 }],
      [null],
      Object.create(null),
      new Date(0),
      0,
      true,
    ),
    fc.jsonValue({ maxDepth: 2 }),
  );
  const fields = fc.constantFrom(...Object.keys(base).filter((k) => k !== 'id' && k !== 'tenantId'));

  it('names entry.id exactly when isUlid rejects the id (ASCII, either case, and odd letters)', () => {
    const idChar = fc.constantFrom(
      ...'0189ABHJKMNPTVZabhjkmnptvz',
      'I',
      'L',
      'O',
      'U',
      'i',
      'o',
      '\u017f',
      '\u00df',
      '\u0131',
      '-',
    );
    fc.assert(
      fc.property(fc.array(idChar, { minLength: 25, maxLength: 27 }), (chars) => {
        const id = chars.join('');
        const record = {
          entry: { ...base, id } as never,
          seq: 1,
          prevHash: '0'.repeat(64),
          hash: '',
          commitments: { userId: 'c'.repeat(64) },
        };
        record.hash = computeRecordHash(record);
        const problem = checkRecord(record, 1, '0'.repeat(64), 't', undefined);
        expect(problem?.field === 'entry.id').toBe(!isUlid(id));
        if (isUlid(id)) expect(problem).toBeUndefined();
      }),
      { numRuns: 2000 },
    );
  });

  it('rejects an entry exactly when AuditEntrySchema does', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fields, values), { maxLength: 3 }), (changes) => {
        const e: Record<string, unknown> = { ...base };
        for (const [k, v] of changes) {
          if (v === undefined) delete e[k];
          else e[k] = v;
        }
        const record = {
          entry: e as never,
          seq: 1,
          prevHash: '0'.repeat(64),
          hash: '',
          commitments: { userId: 'c'.repeat(64) },
        };
        let problem: ReturnType<typeof checkRecord>;
        try {
          record.hash = computeRecordHash(record);
          problem = checkRecord(record, 1, '0'.repeat(64), 't', undefined);
        } catch {
          return; // not canonicalizable: reported as such, not by the schema
        }
        const schemaOk = AuditEntrySchema.safeParse(e).success;
        const userIdOk = typeof e.userId === 'string';
        if (!schemaOk) expect(problem?.reason).toBe('invalid_entry');
        else if (userIdOk) expect(problem).toBeUndefined();
      }),
      { numRuns: 3000 },
    );
  });
});
