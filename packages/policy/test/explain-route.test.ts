/**
 * `POST /decisions/explain`: "why was this denied?" for a chosen user — the effective policy, each
 * level's policies and what they contributed, the decision (the built-in engine's own) and the
 * policy that decided; scoped like the policy reads (out of scope or unknown → 404); audited as
 * the caller's policy_decision; documented in the OpenAPI document.
 */
import {
  type Decision,
  InMemoryAuditSink,
  InMemoryOrgDirectory,
  InMemoryPolicyStore,
  type Policy,
  type Role,
} from '@agentgov/core';
import { makePolicy } from '@agentgov/core/testing';
import { createTestGovernance, OFFLINE_ISSUER } from '@agentgov/gateway/testing';
import { describe, expect, it } from 'vitest';
import type { DecisionExplanation } from '../src/explain';
import { ExplainBodySchema, policyRoutes } from '../src/gateway/index';

type Who = { userId: string; roles: Role[]; orgUnit?: string; team?: string };
const ADMIN: Who = { userId: 'root', roles: ['enterprise_admin'] };
const ORG_ENG: Who = { userId: 'oa', roles: ['org_admin'], orgUnit: 'eng' };
const ORG_SALES: Who = { userId: 'os', roles: ['org_admin'], orgUnit: 'sales' };
const LEAD_PLATFORM: Who = { userId: 'tl', roles: ['team_lead'], orgUnit: 'eng', team: 'platform' };
const DAVE: Who = { userId: 'dave', roles: ['user'], orgUnit: 'eng', team: 'platform' };
const ALICE: Who = { userId: 'alice', roles: ['user'], orgUnit: 'eng', team: 'platform' };

async function setup() {
  const store = new InMemoryPolicyStore();
  const directory = InMemoryOrgDirectory.fromDefinitions({
    tenant: 'acme',
    orgs: {
      eng: { teams: { platform: ['alice', 'dave', 'tl'] }, users: ['oa'] },
      sales: { teams: { emea: ['carol'] }, users: ['os'] },
    },
  });
  const audit = new InMemoryAuditSink();
  const plugin = policyRoutes({ store, directory, audit });
  const route = plugin.routes.find((r) => r.path === '/decisions/explain' && r.method === 'POST');
  if (!route) throw new Error('no POST /decisions/explain');
  const explain = (body: unknown, who: Who = ADMIN) =>
    (
      route.handler as (
        i: { body: unknown },
        rc: unknown,
      ) => Promise<{ status: number; body: DecisionExplanation & { engine: string } }>
    )(
      { body: ExplainBodySchema.parse(body) },
      {
        principal: { tenantId: 'acme', ...who },
        requestId: 'req-1',
        signal: AbortSignal.timeout(5_000),
      },
    );
  const put = async (over: Partial<Policy>) => {
    const p = makePolicy({ tenantId: 'acme', domain: 'actions', status: 'active', ...over });
    await store.insert(p);
    return p;
  };
  const enterprise = await put({
    scope: 'enterprise',
    scopeId: 'acme',
    name: 'tool autonomy',
    content: 'default_autonomy: notify\nactions: {send_mail: approve}\n',
  });
  const org = await put({
    scope: 'org',
    scopeId: 'eng',
    name: 'eng tools',
    content: 'actions: {send_mail: block}\n',
  });
  const team = await put({
    scope: 'team',
    scopeId: 'platform',
    name: 'platform',
    // Restates the org's value (contributes nothing there) and adds a blocked tool.
    content: 'actions: {send_mail: block}\nblocked: [delete_repository]\n',
  });
  return { store, directory, audit, plugin, explain, enterprise, org, team };
}

const sendMail = (userId: string) => ({ userId, domain: 'actions', input: { tool: 'send_mail' } });

describe('POST /decisions/explain', () => {
  it("explains a chosen user's denial: effective policy, each level's contribution, the policy that decided", async () => {
    const { explain, plugin, enterprise, org, team } = await setup();
    const r = await explain(sendMail('dave'));
    expect(r.status).toBe(200);
    const x = r.body;
    expect(x.decision).toMatchObject({
      allow: false,
      deny: true,
      policyIds: [enterprise.id, org.id, team.id],
    });
    expect(x.decidedBy).toEqual({
      id: org.id,
      scope: 'org',
      scopeId: 'eng',
      name: 'eng tools',
      version: org.version,
    });
    expect(x.effective).toEqual({
      default_autonomy: 'notify',
      actions: { send_mail: 'block' },
      blocked: ['delete_repository'],
    });
    expect(x.trace.map((l) => [l.scope, l.scopeId, l.policies.map((p) => [p.name, p.contributed])])).toEqual([
      [
        'enterprise',
        'acme',
        [
          [
            'tool autonomy',
            [
              { key: 'actions.send_mail', value: 'approve' },
              { key: 'default_autonomy', value: 'notify' },
            ],
          ],
        ],
      ],
      ['org', 'eng', [['eng tools', [{ key: 'actions.send_mail', value: 'block' }]]]],
      ['team', 'platform', [['platform', [{ key: 'blocked', value: ['delete_repository'] }]]]],
      ['user', 'dave', []],
    ]);
    expect(x.trace.map((l) => l.decision.allow)).toEqual([true, false, false, false]);
    expect(x.engine).toBe('builtin');
    // The decision explained is the one the engine makes for dave.
    const engine = await plugin.engine.decide({
      domain: 'actions',
      tenantId: 'acme',
      userId: 'dave',
      input: { tool: 'send_mail' },
    });
    expect(engine._unsafeUnwrap()).toEqual(x.decision);
  });

  it('the explained decision equals the engine’s for every tool and user (allowed ones included)', async () => {
    const { explain, plugin } = await setup();
    for (const userId of ['dave', 'carol', 'oa'])
      for (const tool of ['send_mail', 'delete_repository', 'read_file']) {
        const x = (await explain({ userId, domain: 'actions', input: { tool } })).body;
        const d = (
          await plugin.engine.decide({ domain: 'actions', tenantId: 'acme', userId, input: { tool } })
        )._unsafeUnwrap() as Decision;
        expect(x.decision, `${userId} ${tool}`).toEqual(d);
      }
    // carol (sales) is outside the org and team policies: the enterprise policy decided.
    const carol = (await explain(sendMail('carol'))).body;
    expect(carol.decision).toMatchObject({ allow: true, constraints: { autonomy: 'approve' } });
    expect(carol.decidedBy?.name).toBe('tool autonomy');
  });

  it('no policy changed the decision: decidedBy is null (the defaults decided)', async () => {
    const { explain } = await setup();
    const x = (
      await explain({
        userId: 'dave',
        domain: 'agent-to-agent',
        input: {
          exchange_type: 'information_query',
          initiator_tenant_id: 'acme',
          responder_tenant_id: 'acme',
          initiator_org_unit: 'eng',
          responder_org_unit: 'sales',
          classification_level: 'internal',
        },
      })
    ).body;
    expect(x.decision.allow).toBe(false);
    expect(x.decision.reason).toMatch(/not enabled/);
    expect(x.decidedBy).toBeNull();
    expect(x.trace.every((l) => l.policies.length === 0)).toBe(true);
  });

  it('is scoped like the policy reads: out of scope or unknown → 404 NOT_FOUND', async () => {
    const { explain } = await setup();
    const allowed: [Who, string][] = [
      [ADMIN, 'carol'],
      [ORG_ENG, 'dave'],
      [ORG_SALES, 'carol'],
      [LEAD_PLATFORM, 'dave'],
      [DAVE, 'dave'],
    ];
    for (const [who, userId] of allowed)
      expect((await explain(sendMail(userId), who)).status, `${who.userId} → ${userId}`).toBe(200);
    const refused: [Who, string][] = [
      [ORG_ENG, 'carol'],
      [ORG_SALES, 'dave'],
      [LEAD_PLATFORM, 'carol'],
      [LEAD_PLATFORM, 'oa'],
      [DAVE, 'alice'],
      [ALICE, 'dave'],
      [ADMIN, 'mallory'],
      [ORG_ENG, 'mallory'],
    ];
    for (const [who, userId] of refused)
      await expect(explain(sendMail(userId), who), `${who.userId} → ${userId}`).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });
  });

  it('audits each explanation as a policy_decision of the caller, naming whom it was about', async () => {
    const { explain, audit, org, enterprise, team } = await setup();
    await explain(sendMail('dave'), ORG_ENG);
    await expect(explain(sendMail('carol'), ORG_ENG)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(audit.entries).toHaveLength(1);
    expect(audit.entries[0]).toMatchObject({
      userId: 'oa',
      actionType: 'policy_decision',
      actionDetail: {
        domain: 'actions',
        input: { tool: 'send_mail' },
        engine: 'builtin',
        operation: 'explain',
        subjectUserId: 'dave',
      },
      policyApplied: [enterprise.id, org.id, team.id].join(','),
      policyResult: 'deny',
      outcome: 'denied',
    });
  });

  it('is in the OpenAPI document with its body, answer and rate-limit category', async () => {
    const { plugin } = await setup();
    const route = plugin.routes.find((r) => r.path === '/decisions/explain');
    expect(route?.rateLimit).toBe('admin');
    const gov = createTestGovernance(OFFLINE_ISSUER, { plugins: [plugin] });
    const op = gov.openapi.paths['/api/v1/decisions/explain']?.post as {
      requestBody: unknown;
      responses: Record<string, unknown>;
    };
    expect(op).toBeDefined();
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '404']));
    const explanation = JSON.stringify(gov.openapi.components.schemas.DecisionExplanation);
    for (const key of ['effective', 'decidedBy', 'trace', 'contributed'])
      expect(explanation).toContain(`"${key}"`);
    expect(JSON.stringify(op.requestBody)).toContain('"userId"');
  });
});
