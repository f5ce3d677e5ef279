/**
 * The published JSON Schema of a policy file: up to date with the zod schemas, a valid draft
 * 2020-12 schema, and in agreement with the loader (`parsePolicyFile`) on the example policies,
 * on random content of every domain and on the spellings users write.
 */
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { POLICY_DOMAINS, type PolicyDomain } from '@agentgov/core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  DOMAIN_LATTICES,
  POLICY_FILE_SCHEMA_FILE,
  parsePolicyContent,
  parsePolicyFile,
  policyFileJsonSchema,
} from '../src/index';
import { contentArb } from './content-arb';

const here = dirname(fileURLToPath(import.meta.url));
const packageDir = resolve(here, '..');
const schemaPath = join(packageDir, POLICY_FILE_SCHEMA_FILE);
const examples = resolve(packageDir, '../../examples/policies/policies');

const published = JSON.parse(await readFile(schemaPath, 'utf8')) as Record<string, unknown>;
const ajv = new Ajv2020({ strict: true, allErrors: true });
// `deprecated` is a 2020-12 annotation keyword; strict mode only needs to know the `title`s etc.
const validate = ajv.compile(published);

const file = (domain: PolicyDomain, content: unknown) => ({
  scope: 'enterprise',
  scopeId: 'acme',
  domain,
  name: 'p',
  version: '1.0.0',
  content,
});

async function yamlFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await yamlFiles(path)));
    else if (/\.ya?ml$/.test(e.name)) out.push(path);
  }
  return out.sort();
}

describe('the policy file JSON Schema', () => {
  it('is up to date with the zod schemas (regenerate: pnpm --filter @agentgov/policy schema)', () => {
    expect(published).toEqual(policyFileJsonSchema());
  });

  it('is published as a subpath of the package', async () => {
    const pkg = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8'));
    expect(pkg.exports[`./${POLICY_FILE_SCHEMA_FILE}`]).toBe(`./${POLICY_FILE_SCHEMA_FILE}`);
    expect(pkg.files).toContain(POLICY_FILE_SCHEMA_FILE);
  });

  it('accepts every example policy, which names it for editors', async () => {
    const files = await yamlFiles(examples);
    expect(files.length).toBeGreaterThan(5);
    for (const path of files) {
      const text = await readFile(path, 'utf8');
      const ref = /^# yaml-language-server: \$schema=(\S+)$/m.exec(text)?.[1];
      expect(ref, `${path} names the schema`).toBeDefined();
      expect(resolve(dirname(path), ref as string)).toBe(schemaPath);
      expect(validate(parse(text)), `${path}: ${ajv.errorsText(validate.errors)}`).toBe(true);
      expect(parsePolicyFile(text, relative(examples, path)).isOk()).toBe(true);
    }
  });

  it.each(POLICY_DOMAINS.map((d) => [d] as [PolicyDomain]))(
    'accepts every valid %s content the loader produces (property)',
    (domain) => {
      fc.assert(
        fc.property(contentArb(DOMAIN_LATTICES[domain]), (content) => {
          expect(validate(file(domain, content)), ajv.errorsText(validate.errors)).toBe(true);
        }),
        { numRuns: 150 },
      );
    },
  );

  const written: [PolicyDomain, unknown][] = [
    ['agent-to-agent', { max_rounds: 3, cross_org: false, cross_enterprise: false }],
    ['agent-to-agent', { cross_org: 'internal', allowed_exchange_types: 'information_query' }],
    ['models', { sensitive_data_model: 'onprem-llm', allowed_providers: ['anthropic'] }],
    ['actions', { tools: { send_mail: 'approve' }, default_autonomy: 'notify', blocked: ['wire_money'] }],
    ['integrations', { connectors: { mail: { enabled: true, permissions: 'read' } } }],
    ['features', { briefings: true, betaSearch: false }],
    ['data', { retention: 90, classification_overrides: { 'drive:/hr/*': 'restricted' } }],
    ['data', { retention_days: 30 }],
    ['audit', { log_all_actions: true, retention_years: 7, export_roles: 'enterprise_admin' }],
  ];
  it.each(written)('agrees with the loader on the spelling users write (%s %j)', (domain, content) => {
    expect(parsePolicyContent(domain, content).isOk()).toBe(true);
    expect(validate(file(domain, content)), ajv.errorsText(validate.errors)).toBe(true);
  });

  const refused: [PolicyDomain, unknown][] = [
    ['models', { max_rounds: 3 }],
    ['agent-to-agent', { cross_enterprise: true }],
    ['agent-to-agent', { max_rounds: { gossip: 2 } }],
    ['agent-to-agent', { max_classification_shared: 'secret' }],
    ['actions', { actions: { send_mail: 'sometimes' } }],
    ['features', { briefings: 'yes' }],
    ['features', { 'fly away': true }],
    ['data', { retention: { default: 0 } }],
    ['audit', { log_all_actions: 'always' }],
  ];
  it.each(refused)('agrees with the loader on content it refuses (%s %j)', (domain, content) => {
    expect(parsePolicyContent(domain, content).isErr()).toBe(true);
    expect(validate(file(domain, content))).toBe(false);
  });

  it('refuses a file without its fields or with unknown ones', () => {
    expect(validate({ domain: 'models', content: {} })).toBe(false);
    expect(validate({ ...file('models', {}), colour: 'red' })).toBe(false);
    expect(validate({ ...file('models', {}), version: 'one' })).toBe(false);
    expect(validate(file('models', 'max_classification: internal\n'))).toBe(true);
  });
});
