/**
 * The engines' hot-path check (`isExactDecisionRequest`, behind `checkDecisionRequest`) against
 * the schema it shortcuts: it may refuse more than `parseDecisionRequest` (the caller then parses
 * in full), never accept more, and it accepts every plain request the parse would hand back
 * unchanged — so typed callers never pay for zod or a copy.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isExactDecisionRequest } from '../src/decision/check';
import {
  checkDecisionRequest,
  DECISION_DOMAINS,
  type DecisionDomain,
  DecisionRequestSchema,
  isCheckedDecisionRequest,
  parseDecisionRequest,
} from '../src/index';
import { fields, name, noisyInputs, validInputs } from './decision-arbitraries';

afterEach(() => {
  vi.restoreAllMocks();
});

const valid = fc
  .constantFrom(...DECISION_DOMAINS)
  .chain((domain) =>
    fc
      .tuple(
        fc.record({ domain: fc.constant(domain), tenantId: name, input: validInputs[domain] }),
        fc.option(name),
      )
      .map(([r, userId]) => (userId === null ? { ...r, scope: 'enterprise' } : { ...r, userId })),
  );
const noisy = fc.constantFrom(...DECISION_DOMAINS, 'weather').chain((domain) =>
  fields({
    domain: fc.constant(domain),
    tenantId: name,
    userId: name,
    scope: fc.constant('enterprise'),
    input: noisyInputs[domain as DecisionDomain] ?? noisyInputs.features,
  }),
);
const request = fc.oneof(valid, noisy);
/** An `undefined` value at any depth: zod keeps the key, `JSON.stringify` drops it. */
const hasUndefined = (value: unknown): boolean =>
  typeof value === 'object' &&
  value !== null &&
  Object.values(value).some((v) => v === undefined || hasUndefined(v));

describe('the exact check of a decision request', () => {
  it('never accepts what parseDecisionRequest refuses or would change', () => {
    let accepted = 0;
    fc.assert(
      fc.property(request, (r) => {
        const parsed = parseDecisionRequest(r);
        if (isExactDecisionRequest(r)) {
          accepted += 1;
          expect(parsed.isOk()).toBe(true);
          // Same keys and values (a null-prototype request is copied onto a plain object).
          expect(JSON.stringify(parsed._unsafeUnwrap())).toBe(JSON.stringify(r));
          expect(parsed._unsafeUnwrap()).toEqual(r);
        }
      }),
      { numRuns: 3000 },
    );
    // The generator reaches valid requests often enough for the property to say something.
    expect(accepted).toBeGreaterThan(300);
  });

  it('accepts every plain request the schema hands back unchanged', () => {
    fc.assert(
      fc.property(request, (r) => {
        const parsed = DecisionRequestSchema.safeParse(r);
        const unchanged = parsed.success && JSON.stringify(parsed.data) === JSON.stringify(r);
        const oneLevel = (r as { userId?: unknown }).userId === undefined;
        const levelOk = oneLevel === ((r as { scope?: unknown }).scope !== undefined);
        if (unchanged && levelOk && !hasUndefined(r)) {
          expect(isExactDecisionRequest(r)).toBe(true);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("takes a typed caller's valid request as it is: no zod, no copy, nothing frozen", () => {
    const parse = vi.spyOn(DecisionRequestSchema, 'safeParse');
    const r = {
      domain: 'features',
      tenantId: 'acme',
      userId: 'alice',
      input: { feature: 'briefings' },
    } as const;
    const checked = checkDecisionRequest(r);
    expect(checked._unsafeUnwrap()).toBe(r);
    expect(parse).not.toHaveBeenCalled();
    expect(Object.isFrozen(r) || Object.isFrozen(r.input)).toBe(false);
    // Not remembered either: the caller still holds it and may change it.
    expect(isCheckedDecisionRequest(r)).toBe(false);
  });

  it('still refuses an untyped request without userId or scope (issue 23, item 11)', () => {
    const r = JSON.parse('{"domain":"features","tenantId":"acme","input":{"feature":"briefings"}}');
    expect(isExactDecisionRequest(r)).toBe(false);
    const checked = checkDecisionRequest(r);
    expect(checked.isErr() && checked.error.code).toBe('missing_type');
    expect(checked.isErr() && checked.error.detail.map((f) => f.field)).toEqual(['userId']);
  });

  it('parses in full (and cleans) a valid request with an unknown key', () => {
    const r = {
      domain: 'data',
      tenantId: 'acme',
      userId: 'alice',
      input: { classification_level: 'public', role: 'admin' },
    };
    const checked = checkDecisionRequest(r)._unsafeUnwrap();
    expect(checked).not.toBe(r);
    expect(checked.input).toEqual({ classification_level: 'public' });
    expect(isCheckedDecisionRequest(checked)).toBe(true);
  });
});
