/**
 * In-process demo of @agentgov/policy: loads examples/policies (directory.yaml + policies/),
 * writes every policy through PolicyService (validated, audited), then prints real decisions of
 * the built-in engine and real hierarchy violations. Run: `pnpm demo` from the repo root (or `pnpm --filter
 * @agentgov/example-policy-demo start`).
 */
import { fileURLToPath } from 'node:url';
import {
  type AgentToAgentInput,
  type DecisionRequest,
  InMemoryAuditSink,
  InMemoryPolicyStore,
  type IntegrationsInput,
} from '@agentgov/core';
import {
  BuiltinDecisionEngine,
  EffectivePolicyResolver,
  loadPolicyBundle,
  PolicyService,
  type Principal,
  toYaml,
  validateBundle,
} from '@agentgov/policy';

const dir = fileURLToPath(new URL('../../policies', import.meta.url));
const log = (text = '') => process.stdout.write(`${text}\n`);

const bundle = await loadPolicyBundle(dir);
if (bundle.isErr()) {
  console.error(`cannot load ${dir}: ${bundle.error.message}`);
  process.exit(2);
}
const { tenantId, directory } = bundle.value;
const report = await validateBundle(bundle.value);
log(`# ${dir}`);
log(`tenant ${tenantId}: ${bundle.value.policies.length} policy files, valid: ${report.valid}`);

// Write every policy through the service, enterprise first, as an enterprise admin.
const store = new InMemoryPolicyStore();
const audit = new InMemoryAuditSink();
const resolver = new EffectivePolicyResolver({ store, directory });
const service = new PolicyService({ store, directory, audit, onChange: (t) => resolver.invalidate(t) });
const admin: Principal = { userId: 'root', tenantId, roles: ['enterprise_admin'] };
const depth = { enterprise: 0, org: 1, team: 2, user: 3 } as const;
for (const doc of [...bundle.value.policies].sort((a, b) => depth[a.scope] - depth[b.scope])) {
  const created = await service.create(admin, {
    scope: doc.scope,
    scopeId: doc.scopeId,
    domain: doc.domain,
    name: doc.name,
    version: doc.version,
    content: toYaml(doc.content),
    changeReason: doc.changeReason ?? `imported from ${doc.file}`,
  });
  if (created.isErr()) {
    console.error(`${doc.file}: ${created.error.message}`);
    process.exit(1);
  }
}
log(
  `stored ${await store.count(tenantId)} active policies; ${audit.entries.length} policy_change audit entries\n`,
);

// Decisions of the built-in engine.
const engine = new BuiltinDecisionEngine(resolver);
const a2a = (over: Partial<AgentToAgentInput>): AgentToAgentInput => ({
  exchange_type: 'information_query',
  initiator_tenant_id: tenantId,
  responder_tenant_id: tenantId,
  initiator_org_unit: 'eng',
  responder_org_unit: 'eng',
  classification_level: 'internal',
  ...over,
});
const tracker = (
  action: string,
  additional: IntegrationsInput['context']['additional'],
): IntegrationsInput => ({
  action,
  context: { targetSystem: 'tracker', additional },
});
const cases: Array<[string, DecisionRequest]> = [
  [
    'alice (eng/platform): internal information_query within eng',
    { domain: 'agent-to-agent', tenantId, userId: 'alice', input: a2a({}) },
  ],
  [
    'bob: confidential information_query eng → sales',
    {
      domain: 'agent-to-agent',
      tenantId,
      userId: 'bob',
      input: a2a({ classification_level: 'confidential', responder_org_unit: 'sales' }),
    },
  ],
  [
    'carol (sales): internal meeting_scheduling',
    {
      domain: 'agent-to-agent',
      tenantId,
      userId: 'carol',
      input: a2a({
        exchange_type: 'meeting_scheduling',
        initiator_org_unit: 'sales',
        responder_org_unit: 'sales',
      }),
    },
  ],
  [
    'dana (eng, no team): commitment_request',
    {
      domain: 'agent-to-agent',
      tenantId,
      userId: 'dana',
      input: a2a({ exchange_type: 'commitment_request' }),
    },
  ],
  [
    'enterprise: exchange with another tenant',
    {
      domain: 'agent-to-agent',
      tenantId,
      scope: 'enterprise',
      input: a2a({ responder_tenant_id: 'globex' }),
    },
  ],
  [
    'work-tracking: tracker_update',
    {
      domain: 'integrations',
      tenantId,
      scope: 'enterprise',
      input: tracker('tracker_update', { source: 'work-tracking' }),
    },
  ],
  [
    'webhook: tracker_transition on pr_merged',
    {
      domain: 'integrations',
      tenantId,
      scope: 'enterprise',
      input: tracker('tracker_transition', { trigger: 'pr_merged' }),
    },
  ],
  [
    'webhook: tracker_transition on pr_opened',
    {
      domain: 'integrations',
      tenantId,
      scope: 'enterprise',
      input: tracker('tracker_transition', { trigger: 'pr_opened' }),
    },
  ],
];
log('## decisions (built-in engine)');
for (const [label, request] of cases) {
  const decision = await engine.decide(request);
  log(`- ${label}\n  ${decision.isOk() ? JSON.stringify(decision.value) : `error ${decision.error.code}`}`);
}

// Hierarchy violations, as the service returns them.
log('\n## hierarchy violations');
const engAdmin: Principal = { userId: 'erin', tenantId, roles: ['org_admin'], orgUnit: 'eng' };
const expand = await service.create(engAdmin, {
  scope: 'org',
  scopeId: 'eng',
  domain: 'agent-to-agent',
  name: 'eng wants more',
  version: '1.0.0',
  content: 'max_classification_shared: restricted\nmax_rounds: {information_query: 10}\n',
  changeReason: 'demo: try to expand the enterprise policy',
});
if (expand.isErr())
  log(
    `org_admin erin creates an expanding eng policy → ${expand.error.code}\n${JSON.stringify(expand.error.detail, null, 2)}`,
  );

const enterprise = (await store.list(tenantId, { scope: 'enterprise', domain: 'agent-to-agent' }))[0];
if (enterprise) {
  const tighten = await service.update(admin, enterprise.id, {
    content: `${enterprise.content}`.replace('information_query: 3', 'information_query: 1'),
    changeReason: 'demo: tighten rounds below what a team already set',
  });
  if (tighten.isErr())
    log(
      `\nenterprise tightens information_query rounds to 1 → ${tighten.error.code}: ${tighten.error.message}\n${JSON.stringify(tighten.error.detail, null, 2)}`,
    );
}
log(`\n${audit.entries.length} policy_change audit entries in total (refused writes are not recorded)`);
