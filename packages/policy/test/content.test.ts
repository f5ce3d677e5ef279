import { MAX_POLICY_CONTENT_LENGTH } from '@agentgov/core';
import { describe, expect, it } from 'vitest';
import { DOMAIN_SCHEMAS, parsePolicyContent } from '../src/index';

const errorOf = (r: ReturnType<typeof parsePolicyContent>) => {
  if (r.isOk()) throw new Error('expected an error');
  return r.error;
};

describe('policy content', () => {
  it('has one zod schema per domain', () => {
    expect(Object.keys(DOMAIN_SCHEMAS).sort()).toEqual(
      ['actions', 'agent-to-agent', 'audit', 'data', 'features', 'integrations', 'models'].sort(),
    );
  });

  it('parses the spec example agent-to-agent policy', () => {
    const r = parsePolicyContent(
      'agent-to-agent',
      `enabled: true
allowed_exchange_types: [information_query]
max_classification_shared: internal
max_rounds: {information_query: 3, meeting_scheduling: 2, commitment_request: 1}
cross_org: {confidential: deny, restricted: deny}
`,
    );
    expect(r._unsafeUnwrap()).toEqual({
      enabled: true,
      allowed_exchange_types: ['information_query'],
      max_classification_shared: 'internal',
      max_rounds: { information_query: 3, meeting_scheduling: 2, commitment_request: 1 },
      cross_org: { confidential: 'deny', restricted: 'deny' },
    });
  });

  it('rejects an unknown key, naming the key and the domain', () => {
    const e = errorOf(
      parsePolicyContent('models', 'max_classification: internal\nmax_clasification: public\n'),
    );
    expect(e.code).toBe('invalid_type');
    expect(e.field).toBe('content.max_clasification');
    expect(e.message).toContain("unknown key 'max_clasification' in models policy");
  });

  it('rejects an unknown key nested in a map, naming the path', () => {
    const e = errorOf(
      parsePolicyContent('integrations', 'connectors:\n  tracker:\n    enabled: true\n    colour: red\n'),
    );
    expect(e.field).toBe('content.connectors.tracker.colour');
    expect(e.message).toContain("unknown key 'colour' in integrations policy under 'connectors.tracker'");
    const k = errorOf(parsePolicyContent('agent-to-agent', 'max_rounds: {gossip: 2}'));
    expect(k.message).toContain("unknown exchange type 'gossip'");
  });

  it('rejects wrong types and out-of-range values with the field', () => {
    expect(errorOf(parsePolicyContent('agent-to-agent', 'enabled: "yes"')).field).toBe('content.enabled');
    expect(errorOf(parsePolicyContent('agent-to-agent', 'max_rounds: {information_query: 0}')).field).toBe(
      'content.max_rounds.information_query',
    );
    expect(errorOf(parsePolicyContent('audit', 'retention_years: 0')).field).toBe('content.retention_years');
    expect(errorOf(parsePolicyContent('models', 'max_classification: secret')).field).toBe(
      'content.max_classification',
    );
    expect(errorOf(parsePolicyContent('actions', 'tools: {deploy: sometimes}')).field).toBe(
      'content.tools.deploy',
    );
    expect(errorOf(parsePolicyContent('actions', 'tools: {Deploy!: block}')).field).toBe(
      'content.tools.Deploy!',
    );
  });

  it('rejects malformed YAML, duplicate keys and non-mapping content', () => {
    expect(errorOf(parsePolicyContent('data', 'a: [1')).message).toContain('malformed YAML');
    expect(errorOf(parsePolicyContent('data', 'retention_days: 1\nretention_days: 2\n')).message).toContain(
      'malformed YAML',
    );
    expect(errorOf(parsePolicyContent('data', '- a\n- b\n')).field).toBe('content');
  });

  it('rejects alias bombs instead of expanding them', () => {
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (let i = 0; i < 12; i++)
      bomb.push(
        `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`,
      );
    const e = errorOf(parsePolicyContent('data', bomb.join('\n')));
    expect(e.message).toContain('malformed YAML');
  });

  it('rejects oversized content, strings and lists', () => {
    const big = `denied_destinations: [${'x, '.repeat(MAX_POLICY_CONTENT_LENGTH / 3 + 10)}x]`;
    expect(errorOf(parsePolicyContent('data', big)).message).toContain('exceeds');
    expect(errorOf(parsePolicyContent('models', `allowed_providers: [${'p'.repeat(300)}]`)).field).toBe(
      'content.allowed_providers.0',
    );
    const many = Array.from({ length: 1001 }, (_, i) => `p${i}`).join(', ');
    expect(errorOf(parsePolicyContent('models', `allowed_providers: [${many}]`)).field).toBe(
      'content.allowed_providers',
    );
  });

  it('treats empty content as no restriction and sorts and de-duplicates lists', () => {
    expect(parsePolicyContent('features', '')._unsafeUnwrap()).toEqual({});
    expect(
      parsePolicyContent('audit', 'export_roles: [org_admin, enterprise_admin, org_admin]')._unsafeUnwrap(),
    ).toEqual({
      export_roles: ['enterprise_admin', 'org_admin'],
    });
  });

  it('accepts already-parsed mappings', () => {
    expect(parsePolicyContent('features', { briefings: false })._unsafeUnwrap()).toEqual({
      briefings: false,
    });
    // Feature flags are free names (letters, digits, _ . -), but still booleans.
    expect(parsePolicyContent('features', { fly: true })._unsafeUnwrap()).toEqual({ fly: true });
    expect(errorOf(parsePolicyContent('features', { fly: 'yes' })).field).toBe('content.fly');
    expect(errorOf(parsePolicyContent('features', { 'fly away': true })).field).toBe('content.fly away');
  });
});
