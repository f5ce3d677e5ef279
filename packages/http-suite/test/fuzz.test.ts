import type { Governance } from '@agentgov/gateway';
import { startTestIssuer, type TestIssuer } from '@agentgov/gateway/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestService } from '../src/index';

let idp: TestIssuer;
let gov: Governance;
let token: string;
let policyId: string;

beforeAll(async () => {
  idp = await startTestIssuer();
  gov = await createTestService(idp, {
    kernel: {
      // fuzzing sends thousands of requests: lift the limits (the limits themselves are tested in the HTTP suite)
      limits: {
        rateLimits: {
          policy_mutations: { points: 1e9, durationSeconds: 60 },
          audit_queries: { points: 1e9, durationSeconds: 60 },
          audit_export: { points: 1e9, durationSeconds: 60 },
          admin: { points: 1e9, durationSeconds: 60 },
        },
      },
    },
  });
  token = await idp.signIdToken({ sub: 'ea', roles: ['enterprise_admin'], tenant_id: 'fz', org_unit: 'o' });
  const r = await gov.handle(
    new Request('http://gw/api/v1/policies', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: JSON.stringify({
        scope: 'enterprise',
        scopeId: 'fz',
        domain: 'models',
        name: 'n',
        version: '1.0.0',
        content: '{}',
        changeReason: 'r',
      }),
    }),
  );
  policyId = (await r.json()).id;
});
afterAll(async () => {
  await gov.close();
  await idp.close();
});

async function expect4xx(res: Response, allow502 = false) {
  const body = await res.json();
  if (allow502 && res.status === 502) {
    expect(body.error).toBe('token_exchange_failed');
    return;
  }
  expect(res.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
  expect(res.status).toBeLessThan(500);
  expect(typeof body.error).toBe('string');
  expect(typeof body.message).toBe('string');
  expect(res.headers.get('x-request-id')).toBeTruthy();
}

const jsonValue = fc.jsonValue({ maxDepth: 3 });
const bodyArb = fc.oneof(
  jsonValue.map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 200 }),
  fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b).toString('latin1')),
  fc
    .record(
      {
        scope: fc.oneof(fc.constantFrom('enterprise', 'org', 'team', 'user'), jsonValue),
        scopeId: fc.oneof(fc.string(), jsonValue),
        domain: fc.oneof(fc.constantFrom('models', 'data', 'agent-to-agent'), jsonValue),
        name: fc.oneof(fc.string(), jsonValue),
        version: fc.oneof(fc.constantFrom('1.0.0', 'x'), jsonValue),
        content: fc.oneof(fc.constantFrom('max_classification_shared: restricted\n', ': :'), fc.string()),
        changeReason: fc.oneof(fc.string(), jsonValue),
        type: fc.oneof(fc.constantFrom('mail', 'fax'), jsonValue),
        credentials_secret_ref: fc.oneof(fc.string(), jsonValue),
        config: jsonValue,
        domainInput: jsonValue,
        input: jsonValue,
      },
      { requiredKeys: [] },
    )
    .map((o) => JSON.stringify(o)),
);

describe('fuzz: every body parser answers 4xx with the error body, never 5xx', () => {
  const targets: [string, string][] = [
    ['POST', '/policies'],
    ['PUT', '/policies/{id}'],
    ['POST', '/connectors'],
    ['POST', '/decisions'],
  ];
  for (const [method, path] of targets) {
    it(`${method} ${path}`, async () => {
      await fc.assert(
        fc.asyncProperty(bodyArb, async (body) => {
          const res = await gov.handle(
            new Request(`http://gw/api/v1${path.replace('{id}', policyId)}`, {
              method,
              headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
              body,
            }),
          );
          if (res.status < 300) return; // a random body may be valid
          await expect4xx(res);
        }),
        { numRuns: 150 },
      );
    });
  }
  it('POST /auth/callback (a well-formed code reaches the issuer: 502 token_exchange_failed)', async () => {
    await fc.assert(
      fc.asyncProperty(bodyArb, async (body) => {
        const res = await gov.handle(new Request('http://gw/api/v1/auth/callback', { method: 'POST', body }));
        await expect4xx(res, true);
      }),
      { numRuns: 100 },
    );
  });
});

describe('fuzz: every query parser', () => {
  const key = fc.constantFrom(
    'user_id',
    'userId',
    'action_type',
    'actionType',
    'policyResult',
    'requestId',
    'from',
    'to',
    'page',
    'page_size',
    'format',
    'scope',
    'domain',
    'status',
  );
  const value = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.constantFrom(
      '0',
      '-1',
      '1001',
      '1e3',
      'NaN',
      '2025-01-01',
      '2025-13-45',
      'csv',
      'policy_change',
      'team',
    ),
  );
  const query = fc.array(fc.tuple(key, value), { maxLength: 6 });
  for (const path of ['/audit', '/audit/export', '/policies']) {
    it(`GET ${path}`, async () => {
      await fc.assert(
        fc.asyncProperty(query, async (pairs) => {
          const qs = new URLSearchParams(pairs).toString();
          const res = await gov.handle(
            new Request(`http://gw/api/v1${path}?${qs}`, { headers: { authorization: `Bearer ${token}` } }),
          );
          if (res.status === 200) {
            await res.arrayBuffer();
            return;
          }
          await expect4xx(res);
        }),
        { numRuns: 150 },
      );
    });
  }
});
