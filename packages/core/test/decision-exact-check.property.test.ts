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
  CLASSIFICATION_LEVELS,
  checkDecisionRequest,
  DECISION_DOMAINS,
  DecisionRequestSchema,
  EXCHANGE_TYPES,
  FEATURE_NAMES,
  isCheckedDecisionRequest,
  parseDecisionRequest,
} from '../src/index';

afterEach(() => {
  vi.restoreAllMocks();
});

/** A valid value or something close to it that is not (empty, too long, wrong type, absent). */
const near = <T>(valid: fc.Arbitrary<T>) =>
  fc.oneof(
    { weight: 6, arbitrary: valid },
    { weight: 1, arbitrary: fc.constantFrom('', 'x'.repeat(256), 7, null, undefined, [], {}, 'nonsense') },
  );
const name = fc.oneof(fc.string({ minLength: 1, maxLength: 8 }), fc.constant('y'.repeat(255)));
const level = fc.constantFrom(...CLASSIFICATION_LEVELS);
/** Every key optional (absent, or present with a near-valid value), sometimes one unknown key. */
const fields = (model: Record<string, fc.Arbitrary<unknown>>) =>
  fc
    .tuple(
      fc.record(Object.fromEntries(Object.entries(model).map(([k, v]) => [k, near(v)])), {
        requiredKeys: [],
      }),
      fc.option(fc.constantFrom('extra', 'role', '__proto__', ''), { freq: 6 }),
    )
    .map(([record, extra]) => (extra === null ? record : { ...record, [extra]: 'x' }));
const inputs = {
  'agent-to-agent': fields({
    exchange_type: fc.constantFrom(...EXCHANGE_TYPES),
    initiator_tenant_id: name,
    responder_tenant_id: name,
    initiator_org_unit: name,
    responder_org_unit: name,
    classification_level: level,
  }),
  integrations: fields({
    action: name,
    context: fields({
      targetSystem: name,
      additional: fields({ source: fc.string(), trigger: fc.string(), other: fc.nat() }),
    }),
  }),
  models: fields({ provider: name, model: name, classification_level: level }),
  actions: fields({ tool: name, classification_level: level }),
  data: fields({ classification_level: level, destination: name }),
  features: fields({ feature: fc.constantFrom(...FEATURE_NAMES) }),
};
/** Valid requests, each optional key present or not. */
const validInputs = {
  'agent-to-agent': fc.record({
    exchange_type: fc.constantFrom(...EXCHANGE_TYPES),
    initiator_tenant_id: name,
    responder_tenant_id: name,
    initiator_org_unit: name,
    responder_org_unit: name,
    classification_level: level,
  }),
  integrations: fc.record({
    action: name,
    context: fc.record({
      targetSystem: name,
      additional: fc.record(
        { source: fc.string(), trigger: fc.string(), other: fc.nat() },
        { requiredKeys: [] },
      ),
    }),
  }),
  models: fc.record({ provider: name, model: name, classification_level: level }),
  actions: fc.record({ tool: name, classification_level: level }, { requiredKeys: ['tool'] }),
  data: fc.record(
    { classification_level: level, destination: name },
    { requiredKeys: ['classification_level'] },
  ),
  features: fc.record({ feature: fc.constantFrom(...FEATURE_NAMES) }),
};
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
    input: inputs[domain as keyof typeof inputs] ?? inputs.features,
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
