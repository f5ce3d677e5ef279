import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ScopeRef } from '@agentgov/core';
import { describe, expect, it } from 'vitest';
import {
  bundleEngine,
  effectiveAlong,
  loadPolicyBundle,
  parsePolicyContent,
  validateBundle,
  validateChain,
  violationsAgainst,
} from '../src/index';

const ent: ScopeRef = { scope: 'enterprise', scopeId: 'acme' };
const org: ScopeRef = { scope: 'org', scopeId: 'eng' };
const team: ScopeRef = { scope: 'team', scopeId: 'platform' };
const user: ScopeRef = { scope: 'user', scopeId: 'alice' };
const a2a = (yaml: string) => parsePolicyContent('agent-to-agent', yaml)._unsafeUnwrap();
const at = (ref: ScopeRef, ...yaml: string[]) => ({
  ref,
  policies: yaml.map((y, i) => ({ id: `${ref.scopeId}-${i}`, content: a2a(y) })),
});

describe('hierarchy validation', () => {
  it('reports the spec example: an org cannot raise max_classification above the enterprise', () => {
    const models = (y: string) => parsePolicyContent('models', y)._unsafeUnwrap();
    const v = violationsAgainst('models', { ref: org, content: models('max_classification: restricted') }, [
      { ref: ent, policies: [{ content: models('max_classification: confidential') }] },
    ]);
    expect(v).toEqual([
      {
        key: 'max_classification',
        scope: 'org',
        scopeId: 'eng',
        value: 'restricted',
        parentScope: 'enterprise',
        parentScopeId: 'acme',
        parentValue: 'confidential',
        reason: expect.stringContaining("inherited from enterprise 'acme'"),
      },
    ]);
  });

  it('compares against the effective value of the whole chain, not only the immediate parent', () => {
    // org leaves max_rounds unset; the team must still respect the enterprise's 2
    const v = violationsAgainst(
      'agent-to-agent',
      { ref: team, content: a2a('max_rounds: {information_query: 3}') },
      [at(ent, 'max_rounds: {information_query: 2}'), at(org, 'enabled: true')],
    );
    expect(v).toHaveLength(1);
    expect(v[0]).toMatchObject({
      key: 'max_rounds.information_query',
      value: 3,
      parentValue: 2,
      parentScope: 'enterprise',
    });
  });

  it('names the nearest ancestor that sets the effective value', () => {
    const v = violationsAgainst(
      'agent-to-agent',
      { ref: user, content: a2a('max_classification_shared: confidential') },
      [
        at(ent, 'max_classification_shared: confidential'),
        at(org, 'max_classification_shared: internal'),
        at(team, 'max_classification_shared: internal'),
      ],
    );
    expect(v[0]).toMatchObject({ parentScope: 'team', parentScopeId: 'platform', parentValue: 'internal' });
  });

  it('for allow-lists, the effective value is the intersection of the chain', () => {
    const v = violationsAgainst(
      'agent-to-agent',
      { ref: team, content: a2a('allowed_exchange_types: [information_query, meeting_scheduling]') },
      [
        at(ent, 'allowed_exchange_types: [information_query, meeting_scheduling]'),
        at(org, 'allowed_exchange_types: [information_query, commitment_request]'),
      ],
    );
    expect(v).toHaveLength(1);
    expect(v[0]).toMatchObject({ parentValue: ['information_query'], parentScope: 'org' });
    expect(v[0]?.reason).toContain('[meeting_scheduling]');
  });

  it('unset keys inherit, and keys no ancestor sets compare against top (allowed)', () => {
    expect(
      violationsAgainst(
        'agent-to-agent',
        { ref: org, content: a2a('max_rounds: {commitment_request: 50}') },
        [at(ent, 'enabled: true')],
      ),
    ).toEqual([]);
    expect(
      violationsAgainst('agent-to-agent', { ref: org, content: {} }, [
        at(ent, 'max_rounds: {information_query: 1}'),
      ]),
    ).toEqual([]);
  });

  it('several policies at one node combine by meet', () => {
    const chain = [
      at(ent, 'max_classification_shared: confidential', 'max_classification_shared: internal'),
      at(org, 'max_classification_shared: confidential'),
    ];
    expect(effectiveAlong('agent-to-agent', chain)).toEqual({ max_classification_shared: 'internal' });
    const v = validateChain('agent-to-agent', chain);
    expect(v).toHaveLength(1);
    expect(v[0]).toMatchObject({ policyId: 'eng-0', parentValue: 'internal' });
  });

  it('reports every violation of a chain, each with its policy', () => {
    const v = validateChain('agent-to-agent', [
      at(ent, 'enabled: false\nmax_rounds: {information_query: 2}'),
      at(org, 'enabled: true'),
      at(team, 'max_rounds: {information_query: 3}\ncross_org: {restricted: allow}'),
    ]);
    expect(v.map((x) => [x.policyId, x.key])).toEqual([
      ['eng-0', 'enabled'],
      ['platform-0', 'max_rounds.information_query'],
    ]);
  });

  it('orders ordinal actions autonomous < notify < approve < block and floors audit retention', () => {
    const actions = (y: string) => parsePolicyContent('actions', y)._unsafeUnwrap();
    const v = violationsAgainst(
      'actions',
      { ref: team, content: actions('actions: {send_mail: notify, deploy: block}') },
      [{ ref: ent, policies: [{ content: actions('actions: {send_mail: approve, deploy: notify}') }] }],
    );
    expect(v.map((x) => x.key)).toEqual(['actions.send_mail']);
    // The older spelling `tools:` is the same key (reported by its canonical name).
    const old = violationsAgainst('actions', { ref: team, content: actions('tools: {send_mail: notify}') }, [
      { ref: ent, policies: [{ content: actions('actions: {send_mail: approve}') }] },
    ]);
    expect(old.map((x) => [x.key, x.parentScope])).toEqual([['actions.send_mail', 'enterprise']]);
    const audit = (y: string) => parsePolicyContent('audit', y)._unsafeUnwrap();
    const w = violationsAgainst('audit', { ref: org, content: audit('retention_years: 3') }, [
      { ref: ent, policies: [{ content: audit('retention_years: 7') }] },
    ]);
    expect(w[0]?.reason).toBe("retention_years 3 is below the minimum 7 inherited from enterprise 'acme'");
  });
});

describe('a child states only what it adds (issue 28)', () => {
  const actions = (y: string) => parsePolicyContent('actions', y)._unsafeUnwrap();

  it("a team's deny list need not repeat the enterprise's: it is checked merged with what it inherits", () => {
    const chain = [
      { ref: ent, policies: [{ content: actions('blocked: [wire_money]') }] },
      { ref: team, policies: [{ content: actions('blocked: [search_docs]') }] },
    ];
    expect(validateChain('actions', chain)).toEqual([]);
    expect(effectiveAlong('actions', chain)).toEqual({ blocked: ['search_docs', 'wire_money'] });
  });

  it('a child still cannot loosen: a longer allow-list or a higher limit is refused', () => {
    const models = (y: string) => parsePolicyContent('models', y)._unsafeUnwrap();
    const v = violationsAgainst(
      'models',
      { ref: team, content: models('denied_models: [m2]\nallowed_providers: [anthropic, openai]') },
      [{ ref: ent, policies: [{ content: models('denied_models: [m1]\nallowed_providers: [anthropic]') }] }],
    );
    expect(v.map((x) => x.key)).toEqual(['allowed_providers']);
  });

  it('a bundle on disk (what `agentgov policy validate` reads) accepts the lean team file and blocks both tools', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentgov-policy-'));
    try {
      await writeFile(
        join(dir, 'directory.yaml'),
        'tenant: acme\norgs: {eng: {teams: {platform: [alice]}}}\n',
      );
      await mkdir(join(dir, 'policies'));
      const file = (scope: string, scopeId: string, blocked: string) =>
        `scope: ${scope}\nscopeId: ${scopeId}\ndomain: actions\nname: ${scope} tools\nversion: '1.0.0'\ncontent:\n  default_autonomy: autonomous\n  blocked: [${blocked}]\n`;
      await writeFile(join(dir, 'policies/enterprise.yaml'), file('enterprise', 'acme', 'wire_money'));
      await writeFile(join(dir, 'policies/team.yaml'), file('team', 'platform', 'search_docs'));
      const bundle = (await loadPolicyBundle(dir))._unsafeUnwrap();
      const report = await validateBundle(bundle);
      expect(report.violations).toEqual([]);
      expect(report.valid).toBe(true);
      const { engine } = await bundleEngine(bundle);
      const autonomy = async (tool: string) =>
        (
          await engine.decide({ tenantId: 'acme', userId: 'alice', domain: 'actions', input: { tool } })
        )._unsafeUnwrap().constraints.autonomy;
      expect(await autonomy('search_docs')).toBe('block');
      expect(await autonomy('wire_money')).toBe('block');
      expect(await autonomy('read_calendar')).toBe('autonomous');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
