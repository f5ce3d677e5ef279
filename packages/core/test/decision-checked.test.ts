/**
 * A decision request is checked once: `DecisionBodySchema` (the HTTP body) and `decisionRequestOf`
 * mark the request they build, frozen, and `parseDecisionRequest` (what every engine calls) hands
 * such a request back without parsing it again; anything else — a cast, a copy, an untyped
 * caller's object, a body the schema did not produce, invalid ids — is checked in full.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type DecisionBody,
  DecisionBodySchema,
  type DecisionRequest,
  DecisionRequestSchema,
  decisionRequestOf,
  parseDecisionRequest,
} from '../src/index';

const BODY = {
  domain: 'agent-to-agent',
  input: {
    exchange_type: 'information_query',
    initiator_tenant_id: 'acme',
    responder_tenant_id: 'acme',
    initiator_org_unit: 'eng',
    responder_org_unit: 'sales',
    classification_level: 'internal',
  },
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a decision request checked once', () => {
  it('takes a request built from a checked body without parsing it again', () => {
    const body = DecisionBodySchema.parse(BODY);
    const request = decisionRequestOf(body, 'acme', 'alice');
    const parse = vi.spyOn(DecisionRequestSchema, 'safeParse');
    const parsed = parseDecisionRequest(request);
    expect(parse).not.toHaveBeenCalled();
    expect(parsed._unsafeUnwrap()).toBe(request);
    expect(request).toEqual({ ...BODY, tenantId: 'acme', userId: 'alice' });
  });

  it('freezes what it checked, so it cannot change after the check', () => {
    const request = decisionRequestOf(DecisionBodySchema.parse(BODY), 'acme', 'alice');
    expect(Object.isFrozen(request)).toBe(true);
    expect(Object.isFrozen(request.input)).toBe(true);
    expect(() => {
      (request.input as { classification_level: string }).classification_level = 'nonsense';
    }).toThrow(TypeError);
    const parsed = parseDecisionRequest({ ...BODY, tenantId: 'acme', userId: 'alice' })._unsafeUnwrap();
    expect(Object.isFrozen(parsed) && Object.isFrozen(parsed.input)).toBe(true);
    // Parsed once, a request is taken as it is the next time.
    expect(parseDecisionRequest(parsed)._unsafeUnwrap()).toBe(parsed);
  });

  it("never freezes the caller's own objects (zod keeps unknown keys by reference)", () => {
    const extra = { note: 'from the caller' };
    const input = { action: 'push', context: { targetSystem: 'jira', additional: { source: 'cli', extra } } };
    const parsed = parseDecisionRequest({
      domain: 'integrations',
      tenantId: 'acme',
      scope: 'enterprise',
      input,
    })._unsafeUnwrap();
    const body = DecisionBodySchema.parse({ domain: 'integrations', input });
    expect(Object.isFrozen(extra)).toBe(false);
    expect(Object.isFrozen(input.context.additional)).toBe(false);
    extra.note = 'changed later';
    // What was checked keeps what it was checked with.
    for (const checked of [parsed.input, body.input]) {
      const additional = (checked as typeof input).context.additional;
      expect(additional.extra).toEqual({ note: 'from the caller' });
      expect(Object.isFrozen(additional.extra)).toBe(true);
    }
  });

  it('checks in full a body the schema did not produce', () => {
    const forged = { domain: 'features', input: { feature: 'teleport' } } as unknown as DecisionBody;
    const request = decisionRequestOf(forged, 'acme', 'alice');
    expect(Object.isFrozen(request)).toBe(false);
    const parsed = parseDecisionRequest(request);
    expect(parsed.isErr() && parsed.error.detail.map((f) => f.field)).toEqual(['input.feature']);
  });

  it('checks in full a checked body with invalid ids', () => {
    const body = DecisionBodySchema.parse(BODY);
    for (const [tenantId, userId] of [
      ['', 'alice'],
      ['acme', 'x'.repeat(256)],
    ] as const) {
      const parsed = parseDecisionRequest(decisionRequestOf(body, tenantId, userId));
      expect(parsed.isErr() && parsed.error.detail.map((f) => f.field)).toEqual([
        tenantId === '' ? 'tenantId' : 'userId',
      ]);
    }
  });

  it('checks in full a look-alike of a checked request', () => {
    const request = decisionRequestOf(DecisionBodySchema.parse(BODY), 'acme', 'alice');
    const lookAlike = {
      ...request,
      input: { ...request.input, classification_level: 'nonsense' },
    } as unknown as DecisionRequest;
    const parsed = parseDecisionRequest(lookAlike);
    expect(parsed.isErr() && parsed.error.detail.map((f) => f.field)).toEqual(['input.classification_level']);
  });

  it('never marks a request without a user: the engine refuses it (issue 23, item 11)', () => {
    const request = decisionRequestOf(DecisionBodySchema.parse(BODY), 'acme');
    expect(Object.isFrozen(request)).toBe(false);
    const parsed = parseDecisionRequest(request);
    expect(parsed.isErr() && parsed.error.code).toBe('missing_type');
    expect(parsed.isErr() && parsed.error.detail.map((f) => f.field)).toEqual(['userId']);
  });

  it('marks nothing the body schema refused', () => {
    expect(DecisionBodySchema.safeParse({ domain: 'weather', input: {} }).success).toBe(false);
    const parse = vi.spyOn(DecisionRequestSchema, 'safeParse');
    const body = { domain: 'features', input: { feature: 'briefings' } } as DecisionBody;
    parseDecisionRequest(decisionRequestOf(body, 'acme'));
    expect(parse).toHaveBeenCalledTimes(1);
  });
});
