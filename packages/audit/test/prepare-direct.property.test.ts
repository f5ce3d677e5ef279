/**
 * The direct writer of the fast path (`prepare-direct.ts`) against the general `prepare` it stands
 * in for: whenever it answers, it answers exactly what the general one does (the same pieces of
 * canonical JSON, commitments and errors); on anything it is unsure of it declines.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveIdentifierPaths, snapshot } from '../src/entry-input';
import { TenantKeys } from '../src/keys';
import { prepareDirect } from '../src/prepare-direct';
import { prepare } from '../src/record-builder';
import { PERSONAL_IDENTIFIER_PATHS } from '../src/records';

const keys = new TenantKeys('property-test-master-key-0123456789abcdef');
/** Mostly clean characters (so the writer answers), now and then one it must decline or escape. */
const char = fc.oneof(
  { weight: 30, arbitrary: fc.constantFrom('a', 'Z', '0', ' ', 'é', '😀', '"', '\\', '\n', 'anon:') },
  { weight: 1, arbitrary: fc.constantFrom('\u0000', '\ud800', '\\u0000') },
);
const text = (min = 0) => fc.array(char, { minLength: min, maxLength: 6 }).map((cs) => cs.join(''));
const identifierKeys = PERSONAL_IDENTIFIER_PATHS.filter((p) => p.startsWith('actionDetail.')).map((p) =>
  p.slice('actionDetail.'.length),
);
const value: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    text(),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(fc.oneof(text(), fc.constantFrom('10', 'b', 'a')), tie('v'), { maxKeys: 3 }),
  ),
})).v;

const validated = fc
  .record({
    tenantId: fc.constantFrom('acme', 't"2'),
    userId: text(1),
    actionType: fc.constantFrom('tool_invocation', 'policy_decision'),
    actionDetail: fc
      .tuple(
        fc.dictionary(text(), value, { maxKeys: 3 }),
        fc.dictionary(
          fc.constantFrom(...identifierKeys, 'tool', 'a'),
          fc.oneof(
            text(),
            text().map((t) => `anon:${t}`),
            fc.integer(),
          ),
          { maxKeys: 3 },
        ),
      )
      .map(([a, b]) => ({ ...a, ...b })),
    dataAccessed: fc.array(
      fc.record({ source: text(), classification: fc.constantFrom('public', 'internal'), purpose: text() }),
      { maxLength: 2 },
    ),
    modelUsed: fc.option(text(), { nil: null }),
    modelTokens: fc.option(fc.record({ input: fc.nat(), output: fc.nat() }), { nil: null }),
    dataClassification: fc.constantFrom('public', 'confidential'),
    policyApplied: text(1),
    policyResult: fc.constantFrom('allow', 'deny'),
    policyReason: text(),
    outcome: fc.constantFrom('success', 'denied'),
    requestId: text(1),
    timestamp: fc.option(fc.constant('2026-02-03T04:05:06.789Z'), { nil: undefined }),
  })
  .map((e) => snapshot(e as never))
  .filter((e) => e !== undefined);

describe('prepareDirect', () => {
  it('answers, when it answers, exactly what the general prepare answers (default and custom paths)', () => {
    let answered = 0;
    for (const configured of [PERSONAL_IDENTIFIER_PATHS, ['actionDetail.tool', 'actionDetail.a']]) {
      const identifiers = resolveIdentifierPaths(configured);
      expect(identifiers.direct).toBe(true);
      const general = { ...identifiers, direct: false };
      fc.assert(
        fc.property(validated, fc.constantFrom('', '3'), (entry, prefix) => {
          const direct = prepareDirect(entry!, keys, identifiers, prefix);
          if (direct === undefined) return;
          answered++;
          const reference = prepare(entry!, keys, general, prefix);
          expect(reference).toBeDefined();
          if (direct.isOk()) expect(reference?._unsafeUnwrap()).toEqual(direct.value);
          else expect(reference?._unsafeUnwrapErr()).toEqual(direct.error);
        }),
        { numRuns: 400 },
      );
    }
    expect(answered).toBeGreaterThan(150); // a good share of the entries take it
  });

  it('answers for plain entries (it is the path taken), and is not used for other path shapes', () => {
    const identifiers = resolveIdentifierPaths();
    const entry = snapshot({
      tenantId: 'acme',
      userId: 'alice',
      actionType: 'tool_invocation',
      actionDetail: { tool: 't', initiatorUserId: 'bob', n: [1, { b: 2, a: 'é' }] },
      policyApplied: 'actions',
      policyResult: 'allow',
      outcome: 'success',
      requestId: 'r',
    });
    expect(prepareDirect(entry!, keys, identifiers, '')?.isOk()).toBe(true);
    expect(resolveIdentifierPaths(['dataAccessed.0.source']).direct).toBe(false);
    expect(resolveIdentifierPaths(['actionDetail.a.b']).direct).toBe(false);
  });
});
