import {
  CommitmentRequiresHumanError,
  CrossEnterpriseBlockedError,
  ERROR_CODES,
  type ErrorCode,
  ExchangeRoundLimitError,
  ForbiddenError,
  fromPromise,
  GovernanceError,
  isGovernanceError,
  NotFoundError,
  PolicyCreateSchema,
  PolicyEngineUnreachableError,
  PolicyHierarchyViolationError,
  parseWith,
  statusOf,
  toGovernanceError,
  unwrapOrThrow,
  ValidationError,
  validationErrorFromZod,
} from '@agentgov/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { policyCreate } from './arbitraries';

describe('error codes', () => {
  it('every code has a 4xx/5xx status and a message', () => {
    for (const [code, { status, message }] of Object.entries(ERROR_CODES)) {
      expect(status, code).toBeGreaterThanOrEqual(400);
      expect(status, code).toBeLessThan(600);
      expect(message.length, code).toBeGreaterThan(0);
      expect(statusOf(code as ErrorCode)).toBe(status);
    }
  });

  it('the spec’s codes carry the spec’s statuses, protocol codes our documented choices', () => {
    const expected: Partial<Record<ErrorCode, number>> = {
      POLICY_HIERARCHY_VIOLATION: 400,
      missing_type: 400,
      invalid_type: 400,
      authentication_required: 401,
      no_session: 401,
      session_expired: 401,
      invalid_token: 401,
      forbidden: 403,
      NOT_FOUND: 404,
      tenant_not_found: 404,
      token_exchange_failed: 502,
      CROSS_ENTERPRISE_BLOCKED: 403,
      EXCHANGE_ROUND_LIMIT: 409,
      COMMITMENT_REQUIRES_HUMAN: 403,
      POLICY_ENGINE_UNREACHABLE: 503,
    };
    for (const [code, status] of Object.entries(expected))
      expect(statusOf(code as ErrorCode), code).toBe(status);
  });

  it('GovernanceError for any code carries code, status, message and gives the spec body', () => {
    for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
      const e = new GovernanceError(code);
      expect(e).toBeInstanceOf(Error);
      expect(isGovernanceError(e)).toBe(true);
      expect(e.code).toBe(code);
      expect(e.status).toBe(ERROR_CODES[code].status);
      expect(e.toBody()).toEqual({ error: code, message: ERROR_CODES[code].message });
      const withDetail = new GovernanceError(code, 'custom', { detail: ['x'], cause: new Error('root') });
      expect(withDetail.toBody()).toEqual({ error: code, message: 'custom', detail: ['x'] });
      expect((withDetail.cause as Error).message).toBe('root');
    }
    expect(isGovernanceError(new Error('plain'))).toBe(false);
  });

  it('each typed error class carries its code, status and detail', () => {
    const cases: [GovernanceError, ErrorCode, number, unknown][] = [
      [
        new CrossEnterpriseBlockedError('acme', 'globex'),
        'CROSS_ENTERPRISE_BLOCKED',
        403,
        { initiatorTenantId: 'acme', responderTenantId: 'globex' },
      ],
      [
        new ExchangeRoundLimitError('x-1', 3, 3),
        'EXCHANGE_ROUND_LIMIT',
        409,
        { exchangeId: 'x-1', currentRound: 3, maxRounds: 3 },
      ],
      [
        new CommitmentRequiresHumanError('commitment_request'),
        'COMMITMENT_REQUIRES_HUMAN',
        403,
        { exchangeType: 'commitment_request' },
      ],
      [new PolicyEngineUnreachableError('opa down'), 'POLICY_ENGINE_UNREACHABLE', 503, undefined],
      [
        new PolicyHierarchyViolationError([
          {
            key: 'max_classification',
            scope: 'org',
            value: 'restricted',
            parentScope: 'enterprise',
            parentValue: 'confidential',
            reason: 'expands',
          },
        ]),
        'POLICY_HIERARCHY_VIOLATION',
        400,
        [
          {
            key: 'max_classification',
            scope: 'org',
            value: 'restricted',
            parentScope: 'enterprise',
            parentValue: 'confidential',
            reason: 'expands',
          },
        ],
      ],
      [ValidationError.missing('name'), 'missing_type', 400, [{ field: 'name', message: 'Required' }]],
      [
        ValidationError.invalid('version', 'not semver'),
        'invalid_type',
        400,
        [{ field: 'version', message: 'not semver' }],
      ],
      [new NotFoundError('Policy'), 'NOT_FOUND', 404, undefined],
      [new NotFoundError('Tenant', 'tenant_not_found'), 'tenant_not_found', 404, undefined],
      [new ForbiddenError(), 'forbidden', 403, undefined],
    ];
    for (const [e, code, status, detail] of cases) {
      expect(e.code).toBe(code);
      expect(e.status).toBe(status);
      expect(e).toBeInstanceOf(GovernanceError);
      expect(e.name).toBe(e.constructor.name);
      const body = e.toBody();
      expect(body.error).toBe(code);
      expect(typeof body.message).toBe('string');
      if (detail === undefined) expect('detail' in body).toBe(false);
      else expect(body.detail).toEqual(detail);
      expect(Object.keys(body).every((k) => ['error', 'message', 'detail'].includes(k))).toBe(true);
    }
    expect((new PolicyEngineUnreachableError('x', new Error('econnrefused')).cause as Error).message).toBe(
      'econnrefused',
    );
    expect(new NotFoundError('Policy').message).toBe('Policy not found');
  });
});

const REQUIRED = ['scope', 'scopeId', 'domain', 'name', 'version', 'content', 'changeReason'] as const;

describe('validationErrorFromZod', () => {
  it('an absent required field gives missing_type naming the field', () => {
    fc.assert(
      fc.property(policyCreate, fc.constantFrom(...REQUIRED), (body, field) => {
        const input: Record<string, unknown> = { ...body };
        delete input[field];
        const parsed = PolicyCreateSchema.safeParse(input);
        expect(parsed.success).toBe(false);
        if (parsed.success) return;
        const e = validationErrorFromZod(parsed.error, input);
        expect(e.code).toBe('missing_type');
        expect(e.status).toBe(400);
        expect(e.field).toBe(field);
        expect(e.toBody()).toMatchObject({ error: 'missing_type', detail: [{ field, message: 'Required' }] });
      }),
    );
  });

  it('a missing enum field is missing_type too (zod reports it as invalid_value)', () => {
    const input = {
      scopeId: 'eng',
      domain: 'models',
      name: 'n',
      version: '1.0.0',
      content: 'x',
      changeReason: 'r',
    };
    const parsed = PolicyCreateSchema.safeParse(input);
    if (parsed.success) throw new Error('expected failure');
    expect(parsed.error.issues[0]?.code).toBe('invalid_value');
    const e = validationErrorFromZod(parsed.error, input);
    expect([e.code, e.field, e.message]).toEqual(['missing_type', 'scope', 'Missing required field: scope']);
  });

  it('a wrong value gives invalid_type naming the field', () => {
    const wrong = fc.oneof(
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.string()),
      fc.object(),
      fc.constant(''),
    );
    fc.assert(
      fc.property(policyCreate, fc.constantFrom(...REQUIRED), wrong, (body, field, value) => {
        const input = { ...body, [field]: value };
        const parsed = PolicyCreateSchema.safeParse(input);
        expect(parsed.success).toBe(false);
        if (parsed.success) return;
        const e = validationErrorFromZod(parsed.error, input);
        expect(e.code).toBe('invalid_type');
        expect(e.field).toBe(field);
        expect(e.detail.map((d) => d.field)).toContain(field);
      }),
    );
  });

  it('random objects: the code follows whether the first failing field is absent; fields are dotted paths', () => {
    const noisy = fc.oneof(
      fc.object(),
      policyCreate.chain((body) =>
        fc
          .record({
            body: fc.constant(body),
            drop: fc.subarray([...REQUIRED]),
            extra: fc.object({ maxDepth: 1 }),
          })
          .map(({ body: b, drop, extra }) => {
            const o: Record<string, unknown> = { ...extra, ...b };
            for (const k of drop) delete o[k];
            return o;
          }),
      ),
    );
    fc.assert(
      fc.property(noisy, (input) => {
        const parsed = PolicyCreateSchema.safeParse(input);
        if (parsed.success) return;
        const e = validationErrorFromZod(parsed.error, input, 'body');
        const first = parsed.error.issues[0];
        const path = first?.path.map(String) ?? [];
        const absent =
          path.length > 0 &&
          !(path[0] !== undefined && Object.hasOwn(input, path[0]) && input[path[0]] !== undefined);
        expect(e.code).toBe(absent ? 'missing_type' : 'invalid_type');
        expect(e.field).toBe(['body', ...path].join('.'));
        expect(e.detail).toHaveLength(parsed.error.issues.length);
        for (const [i, issue] of parsed.error.issues.entries())
          expect(e.detail[i]?.field).toBe(['body', ...issue.path.map(String)].join('.'));
      }),
    );
  });

  it('names nested fields by their dotted path', async () => {
    const { z } = await import('zod');
    const schema = z.object({ context: z.object({ additional: z.object({ source: z.string() }) }) });
    const missing = { context: { additional: {} } };
    const r1 = schema.safeParse(missing);
    if (r1.success) throw new Error('expected failure');
    const e1 = validationErrorFromZod(r1.error, missing);
    expect([e1.code, e1.field]).toEqual(['missing_type', 'context.additional.source']);
    const wrong = { context: { additional: { source: 7 } } };
    const r2 = schema.safeParse(wrong);
    if (r2.success) throw new Error('expected failure');
    const e2 = validationErrorFromZod(r2.error, wrong);
    expect([e2.code, e2.field]).toEqual(['invalid_type', 'context.additional.source']);
  });
});

describe('Result helpers', () => {
  it('parseWith returns ok or a ValidationError', () => {
    const good = {
      scope: 'org',
      scopeId: 'eng',
      domain: 'models',
      name: 'n',
      version: '1.0.0',
      content: 'x',
      changeReason: 'r',
    };
    expect(parseWith(PolicyCreateSchema, good)._unsafeUnwrap()).toEqual(good);
    const bad = parseWith(PolicyCreateSchema, { ...good, version: 'one' });
    expect(bad.isErr() && bad.error.code).toBe('invalid_type');
  });
  it('fromPromise maps thrown errors to GovernanceErrors; unwrapOrThrow rethrows them', async () => {
    const r = await fromPromise(Promise.reject(new Error('db down')));
    expect(r.isErr() && r.error.code).toBe('internal_error');
    const typed = new ForbiddenError();
    expect(toGovernanceError(typed)).toBe(typed);
    const failed = await fromPromise(Promise.reject(typed));
    expect(() => unwrapOrThrow(failed)).toThrow(typed);
    expect(unwrapOrThrow(await fromPromise(Promise.resolve(5)))).toBe(5);
  });
});
