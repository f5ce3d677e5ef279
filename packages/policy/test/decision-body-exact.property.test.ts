/**
 * `POST /decisions`' exact body check (`exactDecisionBody`, the kernel's fast path past zod)
 * against the body schema it shortcuts: it never accepts a body `DecisionBodySchema` refuses or
 * would hand back changed, and it takes every plain valid body as it is. Through the kernel, a
 * body it takes and the same body zod parses get the same answer and the same audit entry.
 */
import {
  DECISION_DOMAINS,
  type DecisionDomain,
  InMemoryAuditSink,
  InMemoryOrgDirectory,
  InMemoryPolicyStore,
  InMemorySecretStore,
  type Principal,
} from '@agentgov/core';
import { createGovernance, createMemoryStores } from '@agentgov/gateway';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { fields, noisyInputs, validInputs } from '../../core/test/decision-arbitraries';
import { exactDecisionBody } from '../src/gateway/decision-routes';
import { DecisionBodySchema, policyRoutes } from '../src/gateway/index';

/** Valid bodies: every required key, optional ones present or not. */
const valid = fc.constantFrom(...DECISION_DOMAINS).chain((domain) =>
  fc.record({
    domain: fc.constant(domain),
    input: validInputs[domain],
  }),
);
/** Near-valid bodies: keys missing, values off, unknown keys in the body or its input, unknown domains. */
const noisy = fc.constantFrom(...DECISION_DOMAINS, 'weather').chain((domain) =>
  fields({
    domain: fc.constant(domain),
    input: noisyInputs[domain as DecisionDomain] ?? noisyInputs.features,
  }),
);
/** As JSON.parse hands a body to the kernel. */
const body = fc.oneof(valid, noisy).map((b) => JSON.parse(JSON.stringify(b)) as unknown);

describe('the exact check of a POST /decisions body', () => {
  it('never accepts what DecisionBodySchema refuses or would change, and takes every valid plain body', () => {
    let accepted = 0;
    fc.assert(
      fc.property(body, (b) => {
        const parsed = DecisionBodySchema.safeParse(b);
        const exact = exactDecisionBody(b);
        if (exact !== undefined) {
          accepted += 1;
          expect(exact).toBe(b);
          expect(parsed.success).toBe(true);
          expect(parsed.data).toStrictEqual(b);
        } else if (parsed.success) {
          // Refused by the fast path only when zod cleans it (an unknown key, a default filled in).
          expect(parsed.data).not.toStrictEqual(b);
        }
      }),
      { numRuns: 3000 },
    );
    expect(accepted).toBeGreaterThan(300);
  });

  it('takes each valid body of every domain without zod', () => {
    fc.assert(
      fc.property(
        valid.map((b) => JSON.parse(JSON.stringify(b)) as unknown),
        (b) => {
          expect(exactDecisionBody(b)).toBe(b);
        },
      ),
    );
  });

  it('answers a body it takes as the schema would, with the same audit entry', async () => {
    const store = new InMemoryPolicyStore();
    const directory = InMemoryOrgDirectory.fromDefinitions({
      tenant: 'acme',
      orgs: { eng: { users: ['alice'] } },
    });
    const audit = new InMemoryAuditSink();
    const plugin = policyRoutes({ store, directory, audit });
    const route = plugin.routes.find((r) => r.path === '/decisions' && r.method === 'POST');
    expect(route?.exactBody).toBe(exactDecisionBody);
    const alice: Principal = {
      userId: 'alice',
      email: 'alice@acme.test',
      roles: ['user'],
      tenantId: 'acme',
      orgUnit: 'eng',
      team: null,
      via: 'bearer',
    };
    const gov = createGovernance({
      stores: createMemoryStores(),
      directory,
      secrets: new InMemorySecretStore(),
      audit,
      plugins: [plugin],
      authenticate: async () => alice,
    });
    const post = (b: unknown) =>
      gov.handle(
        new Request('http://test/api/v1/decisions', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(b),
        }),
      );
    await fc.assert(
      fc.asyncProperty(valid, async (b) => {
        const zod = vi.spyOn(DecisionBodySchema, 'safeParse');
        const taken = await post(b);
        expect(zod).not.toHaveBeenCalled();
        // The same body with an unknown key: not exact, so zod parses (and strips) it.
        const parsed = await post({ ...b, extra: 1 });
        expect(zod).toHaveBeenCalledTimes(1);
        zod.mockRestore();
        expect(taken.status).toBe(200);
        expect(parsed.status).toBe(200);
        expect(await taken.json()).toStrictEqual(await parsed.json());
        const [first, second] = audit.entries.slice(-2);
        expect(first?.actionDetail).toStrictEqual(second?.actionDetail);
        expect(first?.policyResult).toBe(second?.policyResult);
      }),
      { numRuns: 30 },
    );
  });
});
