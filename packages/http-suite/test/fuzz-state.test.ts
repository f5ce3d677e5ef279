/** biome-ignore-all lint/suspicious/noExplicitAny: JSON bodies of a black-box HTTP suite are read without schemas */
/**
 * Issue 12: fuzzing of every body, query and path parameter of every route of the route table
 * (fast-check), with hostile values among the arbitrary ones — NUL, lone surrogates, deep nesting,
 * huge strings, years 0000 and 10000 in dates. Every answer is below 500; every refusal has the
 * spec's error body; after every refusal the stored state is unchanged. Plus the regressions of
 * items 2 and 3 at the HTTP level: a lone surrogate in a policy name (was 503 with the policy
 * stored unaudited) and a huge or deep `context.additional` on /decisions (was 500/503, stored).
 */
import type { Governance } from '@agentgov/gateway';
import { sendFetchResponse, toFetchRequest } from '@agentgov/gateway';
import { listen, type StartedServer, startTestIssuer, type TestIssuer } from '@agentgov/gateway/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CallInit, callApi, policyBody } from '../src/harness';
import { ACCOUNTS, createTestService, UNLIMITED_RATE_LIMITS, type Who } from '../src/index';

let idp: TestIssuer;
let gov: Governance;
let server: StartedServer;
const tokens = {} as Record<Who, string>;
let policyId = '';
const call = (path: string, init: CallInit = {}) => callApi(server.url, tokens, path, init);

beforeAll(async () => {
  idp = await startTestIssuer();
  gov = await createTestService(idp, { kernel: { limits: { rateLimits: UNLIMITED_RATE_LIMITS } } });
  server = await listen((req, res) => {
    gov
      .handle(toFetchRequest(req, res), { remoteAddress: req.socket.remoteAddress ?? '' })
      .then((response) => sendFetchResponse(res, response))
      .catch(() => res.destroy());
  });
  for (const [who, account] of Object.entries(ACCOUNTS)) tokens[who as Who] = await idp.signIdToken(account);
  const p = await call('/policies', { as: 'enterpriseAdmin', method: 'POST', body: policyBody() });
  expect(p.status, p.text).toBe(201);
  policyId = p.body.id;
}, 60_000);
afterAll(async () => {
  await server?.close();
  await gov?.close();
  await idp?.close();
});

async function snapshot(): Promise<string> {
  const [policies, connectors, changes, tools, decisions] = await Promise.all([
    call('/policies', { as: 'enterpriseAdmin' }),
    call('/connectors', { as: 'enterpriseAdmin' }),
    call('/audit?actionType=policy_change&page_size=1000', { as: 'enterpriseAdmin' }),
    call('/audit?actionType=tool_invocation&page_size=1000', { as: 'enterpriseAdmin' }),
    call('/audit?actionType=policy_decision&page_size=1000', { as: 'enterpriseAdmin' }),
  ]);
  return JSON.stringify([
    policies.body,
    connectors.body,
    changes.body?.total,
    tools.body?.total,
    decisions.body?.total,
  ]);
}

function expectRefusal(r: { status: number; body: any; text: string }, where: string): void {
  expect(r.status, `${where}: ${r.text.slice(0, 200)}`).toBeLessThan(500);
  if (r.status >= 400) {
    expect(typeof r.body?.error, where).toBe('string');
    expect(typeof r.body?.message, where).toBe('string');
  }
}

/** A path segment from any string: lone surrogates and bytes no UTF-8 decoder accepts stay raw. */
function pathSegment(id: string): string {
  const raw = ['%ED%A0%80', '%00', '%FF'];
  if (id === '\uD800') return raw[0] as string;
  try {
    return encodeURIComponent(id.slice(0, 200));
  } catch {
    return raw[id.length % raw.length] as string;
  }
}

const deep = (n: number): unknown => (n === 0 ? 'x' : { d: deep(n - 1) });
/** Hostile strings next to arbitrary ones. */
const nasty = fc.oneof(
  fc.string(),
  fc.constantFrom(
    'a\u0000b',
    '\uD800',
    'x\uDFFFy',
    '0000-01-01T00:00:00Z',
    '+010000-01-01T00:00:00Z',
    '10000-01-01',
    '',
    ' ',
    '../../etc/passwd',
    '=cmd|/c calc',
    'é'.repeat(300),
  ),
  fc.constant('x'.repeat(70_000)),
);
const hostileValue = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 3, arbitrary: nasty },
  { weight: 1, arbitrary: fc.constant(deep(40)) },
  { weight: 1, arbitrary: fc.constant(Array.from({ length: 6_000 }, (_, i) => i)) },
);

describe('fuzz: every route of the route table, state unchanged after refusals', () => {
  it('bodies, queries and path parameters', async () => {
    const routes = gov.routes
      .map((m) => m.route)
      .filter((r) => !r.path.startsWith('/auth/') && !r.path.startsWith('/webhooks/'));
    expect(routes.length).toBeGreaterThan(10);
    let requests = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes.map((_, i) => i)),
        fc.dictionary(fc.string({ maxLength: 12 }), hostileValue, { maxKeys: 4 }),
        fc.dictionary(
          fc.constantFrom(
            'from',
            'to',
            'page',
            'page_size',
            'scope',
            'domain',
            'user_id',
            'format',
            'status',
          ),
          nasty,
          {
            maxKeys: 3,
          },
        ),
        nasty,
        async (index, body, query, id) => {
          const route = routes[index] as (typeof routes)[number];
          const path = route.path.replace(/\{[^}]+\}/g, pathSegment(id) || 'x');
          const qs = new URLSearchParams(
            Object.entries(query).map(([k, v]) => [k, v.slice(0, 2000)]),
          ).toString();
          const mutation = route.method !== 'GET';
          const before = mutation ? await snapshot() : '';
          const r = await call(`${path}${qs ? `?${qs}` : ''}`, {
            as: 'enterpriseAdmin',
            method: route.method,
            ...(route.body ? { body } : {}),
          });
          requests++;
          const where = `${route.method} ${route.path}`;
          expectRefusal(r, where);
          if (mutation && r.status >= 400) expect(await snapshot(), where).toBe(before);
        },
      ),
      { numRuns: 150, seed: 12 },
    );
    expect(requests).toBe(150);
  }, 240_000);

  it('a lone surrogate in a policy name is a 400 and stores nothing (item 2 at HTTP level)', async () => {
    const before = await snapshot();
    const r = await call('/policies', {
      as: 'enterpriseAdmin',
      method: 'POST',
      body: policyBody({ name: 'bad \uD800 name', scope: 'org', scopeId: 'eng' }),
    });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'invalid_type', message: expect.any(String) });
    expect(await snapshot()).toBe(before);
  });

  it.each([
    ['deeply nested', deep(40)],
    ['huge', { blob: 'x'.repeat(200_000) }],
    ['NUL', { source: 'work-tracking\u0000' }],
  ])(
    '/decisions with a %s context.additional is a 400 and stores nothing (item 3)',
    async (_n, additional) => {
      const before = await snapshot();
      const r = await call('/decisions', {
        as: 'enterpriseAdmin',
        method: 'POST',
        body: {
          domain: 'integrations',
          input: { action: 'tracker_update', context: { targetSystem: 'tracker', additional } },
        },
      });
      expect(r.status, r.text.slice(0, 200)).toBe(400);
      expect(typeof r.body?.error).toBe('string');
      expect(await snapshot()).toBe(before);
    },
  );

  it('dates out of range on /audit are 400 (item 3)', async () => {
    for (const from of ['0000-01-01', '+010000-01-01T00:00:00Z', '2025-01-01\u0000']) {
      const r = await call(`/audit?from=${encodeURIComponent(from)}`, { as: 'enterpriseAdmin' });
      expect(r.status, from).toBe(400);
    }
    expect((await call(`/policies/${policyId}`, { as: 'enterpriseAdmin' })).status).toBe(200);
  });
});
