/**
 * The vocabulary users of the system the spec describes write (issue 15): every domain's keys
 * load, the older spellings are aliases of one canonical form, the shorthands expand, and the
 * restrict-only lattice — with violations naming the key and the blocking scope — covers them all.
 */
import {
  type GovernanceError,
  InMemoryAuditSink,
  InMemoryOrgDirectory,
  InMemoryPolicyStore,
  type PolicyDomain,
  type ScopeRef,
} from '@agentgov/core';
import { describe, expect, it } from 'vitest';
import {
  CROSS_ENTERPRISE_NEVER,
  effectiveAlong,
  evaluate,
  PolicyService,
  parsePolicyContent,
  validateChain,
} from '../src/index';

const parsed = (domain: PolicyDomain, yaml: string) => {
  const r = parsePolicyContent(domain, yaml);
  if (r.isErr()) throw new Error(`${domain}: ${r.error.message}`);
  return r.value as Record<string, unknown>;
};
const refused = (domain: PolicyDomain, yaml: string) => {
  const r = parsePolicyContent(domain, yaml);
  if (r.isOk()) throw new Error(`${domain}: expected a refusal of ${yaml}`);
  return r.error;
};

const ent: ScopeRef = { scope: 'enterprise', scopeId: 'acme' };
const org: ScopeRef = { scope: 'org', scopeId: 'eng' };
const team: ScopeRef = { scope: 'team', scopeId: 'platform' };
const chain = (domain: PolicyDomain, ...levels: [ScopeRef, string][]) =>
  levels.map(([ref, yaml]) => ({ ref, policies: [{ content: parsed(domain, yaml) }] }));
/** `[key, scope, parentScope]` of each violation of a chain. */
const violations = (domain: PolicyDomain, ...levels: [ScopeRef, string][]) =>
  validateChain(domain, chain(domain, ...levels)).map((v) => [v.key, v.scope, v.parentScope]);

describe('the vocabulary of the spec users loads, one domain at a time', () => {
  it('models: allowed_classifications, max_classification, allowed_providers, sensitive_data_model', () => {
    expect(
      parsed(
        'models',
        'allowed_classifications: [public, internal, confidential]\nmax_classification: confidential\n' +
          'allowed_providers: [anthropic, self-hosted]\nsensitive_data_model: onprem-llm\n',
      ),
    ).toEqual({
      allowed_classifications: ['public', 'internal', 'confidential'],
      max_classification: 'confidential',
      allowed_providers: ['anthropic', 'self-hosted'],
      sensitive_data_models: ['onprem-llm'],
    });
  });

  it('actions: default_autonomy, actions: {<tool>: autonomy}, blocked', () => {
    expect(
      parsed(
        'actions',
        'default_autonomy: notify\nactions:\n  send_mail: approve\n  search_docs: autonomous\nblocked: [wire_money]\n',
      ),
    ).toEqual({
      default_autonomy: 'notify',
      actions: { send_mail: 'approve', search_docs: 'autonomous' },
      blocked: ['wire_money'],
    });
  });

  it('integrations: connectors.<type>.{enabled, permissions, max_classification}', () => {
    expect(
      parsed(
        'integrations',
        'connectors:\n  mail: {enabled: true, permissions: [read, write], max_classification: confidential}\n' +
          '  drive: {enabled: false, permissions: read}\n',
      ),
    ).toEqual({
      connectors: {
        mail: { enabled: true, permissions: ['read', 'write'], max_classification: 'confidential' },
        drive: { enabled: false, permissions: ['read'] },
      },
    });
  });

  it('agent-to-agent: enabled, types, max_classification_shared, max_rounds, cross_org, cross_enterprise', () => {
    expect(
      parsed(
        'agent-to-agent',
        'enabled: true\nallowed_exchange_types: [information_query, meeting_scheduling]\n' +
          'max_classification_shared: internal\nmax_rounds: 3\ncross_org: false\ncross_enterprise: false\n',
      ),
    ).toEqual({
      enabled: true,
      allowed_exchange_types: ['information_query', 'meeting_scheduling'],
      max_classification_shared: 'internal',
      max_rounds: { information_query: 3, commitment_request: 3, meeting_scheduling: 3 },
      cross_org: { public: 'deny', internal: 'deny', confidential: 'deny', restricted: 'deny' },
      cross_enterprise: false,
    });
    expect(parsed('agent-to-agent', 'max_rounds: {information_query: 3, commitment_request: 1}\n')).toEqual({
      max_rounds: { information_query: 3, commitment_request: 1 },
    });
    expect(parsed('agent-to-agent', 'cross_org: true\n').cross_org).toEqual({
      public: 'allow',
      internal: 'allow',
      confidential: 'allow',
      restricted: 'allow',
    });
    // A level: allowed up to it, denied above (the spec's example rule is `cross_org: internal`).
    expect(parsed('agent-to-agent', 'cross_org: internal\n').cross_org).toEqual({
      public: 'allow',
      internal: 'allow',
      confidential: 'deny',
      restricted: 'deny',
    });
  });

  it('features: any flag name, each a boolean', () => {
    expect(parsed('features', 'briefings: true\nbetaSearch: false\nweb_ui: true\n')).toEqual({
      briefings: true,
      betaSearch: false,
      web_ui: true,
    });
    expect(refused('features', 'briefings: sometimes\n').field).toBe('content.briefings');
  });

  it('data: external_sharing_max, classification_overrides, retention', () => {
    expect(
      parsed(
        'data',
        'external_sharing_max: public\nclassification_overrides: {hr-records: restricted, "drive:/legal/*": confidential}\n' +
          'retention: {default: 365, transcripts: 30}\n',
      ),
    ).toEqual({
      external_sharing_max: 'public',
      classification_overrides: { 'hr-records': 'restricted', 'drive:/legal/*': 'confidential' },
      retention: { default: 365, transcripts: 30 },
    });
    expect(parsed('data', 'retention: 90\n')).toEqual({ retention: { default: 90 } });
  });

  it('audit: log_all_actions, retention_years, export_roles', () => {
    expect(
      parsed('audit', 'log_all_actions: true\nretention_years: 7\nexport_roles: [enterprise_admin]\n'),
    ).toEqual({ log_all_actions: true, retention_years: 7, export_roles: ['enterprise_admin'] });
  });
});

describe('errors name the key whichever spelling was written', () => {
  it.each([
    [
      'agent-to-agent',
      'cross_org: maybe\n',
      'content.cross_org',
      'expected true, false, a classification level',
    ],
    [
      'agent-to-agent',
      'cross_org: {public: maybe}\n',
      'content.cross_org.public',
      'expected one of "allow"|"deny"',
    ],
    [
      'agent-to-agent',
      'max_rounds: 0\n',
      'content.max_rounds.information_query',
      'expected number to be >=1',
    ],
    ['agent-to-agent', 'max_rounds: two\n', 'content.max_rounds', 'expected number or object'],
    ['models', 'sensitive_data_model: [a, 3]\n', 'content.sensitive_data_model.1', 'expected string'],
    [
      'integrations',
      'connectors: {mail: {permissions: fly}}\n',
      'content.connectors.mail.permissions',
      'expected one of',
    ],
    ['data', 'retention: {transcripts: 0}\n', 'content.retention.transcripts', 'expected number to be >=1'],
    [
      'data',
      'retention: {Default: 30}\n',
      'content.retention.Default',
      "invalid data category name 'Default'",
    ],
  ] as [PolicyDomain, string, string, string][])('%s %s → %s', (domain, yaml, field, message) => {
    const e = refused(domain, yaml);
    expect(e.field).toBe(field);
    expect(e.message).toContain(message);
  });
});

describe('aliases: one canonical form, the other spellings accepted', () => {
  it.each([
    ['actions', 'tools: {send_mail: approve}\n', 'actions: {send_mail: approve}\n'],
    ['models', 'sensitive_data_model: onprem-llm\n', 'sensitive_data_models: [onprem-llm]\n'],
    ['models', 'sensitive_data_model: [a, b]\n', 'sensitive_data_models: [b, a]\n'],
    ['data', 'retention_days: 30\n', 'retention: {default: 30}\n'],
  ] as [PolicyDomain, string, string][])('%s: %s is %s', (domain, alias, canonical) => {
    expect(parsed(domain, alias)).toEqual(parsed(domain, canonical));
  });

  it('refuses a document that sets both spellings, naming the alias', () => {
    const e = refused('actions', 'tools: {a: block}\nactions: {b: notify}\n');
    expect(e.field).toBe('content.tools');
    expect(e.message).toContain("'tools' is another spelling of 'actions'");
    expect(refused('models', 'sensitive_data_model: a\nsensitive_data_models: [a]\n').field).toBe(
      'content.sensitive_data_model',
    );
  });

  it('names the written path in errors under an alias', () => {
    const e = refused('actions', 'tools: {Deploy!: block}\n');
    expect(e.field).toBe('content.tools.Deploy!');
    expect(e.message).toContain("invalid tool name 'Deploy!'");
  });
});

describe('cross_enterprise: true never enables cross-tenant exchange', () => {
  it('is refused with the reason, naming the key', () => {
    const e = refused('agent-to-agent', 'enabled: true\ncross_enterprise: true\n');
    expect(e.code).toBe('invalid_type');
    expect(e.field).toBe('content.cross_enterprise');
    expect(e.message).toContain(CROSS_ENTERPRISE_NEVER);
    expect(e.message).toContain('CROSS_ENTERPRISE_BLOCKED');
  });

  it('false is accepted and cross-tenant inputs stay denied whatever the policy says', () => {
    const policy = parsed('agent-to-agent', 'enabled: true\ncross_enterprise: false\ncross_org: true\n');
    const d = evaluate(policy, 'agent-to-agent', {
      exchange_type: 'information_query',
      initiator_tenant_id: 'acme',
      responder_tenant_id: 'globex',
      initiator_org_unit: 'eng',
      responder_org_unit: 'eng',
      classification_level: 'public',
    });
    expect(d.allow).toBe(false);
  });

  it('through PolicyService: 400-class ValidationError, nothing stored', async () => {
    const store = new InMemoryPolicyStore();
    const service = new PolicyService({
      store,
      directory: InMemoryOrgDirectory.fromDefinitions({ tenant: 'acme', orgs: { eng: {} } }),
      audit: new InMemoryAuditSink(),
    });
    const r = await service.create(
      { userId: 'root', tenantId: 'acme', roles: ['enterprise_admin'] },
      {
        scope: 'enterprise',
        scopeId: 'acme',
        domain: 'agent-to-agent',
        name: 'x',
        version: '1.0.0',
        content: 'cross_enterprise: true\n',
        changeReason: 'test',
      },
    );
    const error = r._unsafeUnwrapErr() as GovernanceError & { field?: string };
    expect(error.code).toBe('invalid_type');
    expect(error.field).toBe('content.cross_enterprise');
    expect(await store.list('acme', {})).toEqual([]);
  });
});

describe('the restrict-only lattice over the new keys (key and blocking scope named)', () => {
  it('cross_org: a lower scope may deny more levels, never allow one a parent denies', () => {
    expect(
      violations('agent-to-agent', [ent, 'cross_org: internal\n'], [org, 'cross_org: public\n']),
    ).toEqual([]);
    expect(violations('agent-to-agent', [ent, 'cross_org: internal\n'], [org, 'cross_org: true\n'])).toEqual([
      ['cross_org.confidential', 'org', 'enterprise'],
      ['cross_org.restricted', 'org', 'enterprise'],
    ]);
  });

  it('sensitive_data_model(s): a subset of the parent list; singular and plural compare alike', () => {
    expect(
      violations('models', [ent, 'sensitive_data_models: [a, b]\n'], [org, 'sensitive_data_model: a\n']),
    ).toEqual([]);
    const v = validateChain(
      'models',
      chain('models', [ent, 'sensitive_data_model: a\n'], [org, 'sensitive_data_models: [a, c]\n']),
    );
    expect(v.map((x) => [x.key, x.parentScope, x.parentValue])).toEqual([
      ['sensitive_data_models', 'enterprise', ['a']],
    ]);
    expect(v[0]?.reason).toContain("allows [c], which the allow-list [a] inherited from enterprise 'acme'");
  });

  it('actions.<tool> (or tools.<tool>): only a stricter autonomy; the blocking scope is the nearest', () => {
    expect(
      violations(
        'actions',
        [ent, 'actions: {send_mail: notify}\n'],
        [org, 'tools: {send_mail: approve}\n'],
        [team, 'actions: {send_mail: notify}\n'],
      ),
    ).toEqual([['actions.send_mail', 'team', 'org']]);
  });

  it('features: any flag, a lower scope may only turn it off', () => {
    expect(violations('features', [ent, 'betaSearch: false\n'], [org, 'betaSearch: true\n'])).toEqual([
      ['betaSearch', 'org', 'enterprise'],
    ]);
    expect(violations('features', [ent, 'betaSearch: true\n'], [org, 'betaSearch: false\n'])).toEqual([]);
  });

  it('classification_overrides: a lower scope may only raise a level', () => {
    const v = validateChain(
      'data',
      chain(
        'data',
        [ent, 'classification_overrides: {hr: confidential}\n'],
        [org, 'classification_overrides: {hr: internal}\n'],
      ),
    );
    expect(v.map((x) => [x.key, x.scope, x.parentScope])).toEqual([
      ['classification_overrides.hr', 'org', 'enterprise'],
    ]);
    expect(v[0]?.reason).toContain(
      "is below the classification 'confidential' inherited from enterprise 'acme'",
    );
    expect(
      effectiveAlong(
        'data',
        chain(
          'data',
          [ent, 'classification_overrides: {hr: confidential}\n'],
          [org, 'classification_overrides: {hr: restricted}\n'],
        ),
      ).classification_overrides,
    ).toEqual({ hr: 'restricted' });
  });

  it('retention (or retention_days): a lower scope may only shorten it', () => {
    expect(violations('data', [ent, 'retention: 365\n'], [org, 'retention_days: 400\n'])).toEqual([
      ['retention.default', 'org', 'enterprise'],
    ]);
    expect(
      effectiveAlong(
        'data',
        chain('data', [ent, 'retention: {default: 365, transcripts: 30}\n'], [org, 'retention: 90\n']),
      ).retention,
    ).toEqual({ default: 90, transcripts: 30 });
  });

  it('log_all_actions: once required, a lower scope cannot turn it off', () => {
    const v = validateChain(
      'audit',
      chain('audit', [ent, 'log_all_actions: true\n'], [org, 'log_all_actions: false\n']),
    );
    expect(v.map((x) => [x.key, x.parentScope])).toEqual([['log_all_actions', 'enterprise']]);
    expect(v[0]?.reason).toBe(
      "log_all_actions drops what is required (true) inherited from enterprise 'acme'",
    );
    expect(violations('audit', [ent, 'log_all_actions: false\n'], [org, 'log_all_actions: true\n'])).toEqual(
      [],
    );
  });
});
