import { spawnSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../src/index';
import { captureIo } from './capture-io';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const examples = join(root, 'examples/policies');
const fixtures = fileURLToPath(new URL('./fixtures', import.meta.url));

const tmp: string[] = [];
afterAll(async () => {
  for (const d of tmp) await rm(d, { recursive: true, force: true });
});

/** The `malformed` fixture plus a file with broken YAML (written here: the repo's linter parses committed YAML). */
async function malformedDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agentgov-cli-'));
  tmp.push(dir);
  await cp(join(fixtures, 'malformed'), dir, { recursive: true });
  await writeFile(
    join(dir, 'policies/broken.yaml'),
    'scope: org\nscopeId: eng\ndomain: agent-to-agent\nname: broken\nversion: 1.0.0\ncontent:\n  max_rounds: { information_query: 2\n',
  );
  return dir;
}

describe('agentgov policy validate', () => {
  it('accepts the example directory (exit 0)', async () => {
    const io = captureIo();
    expect(await run(['policy', 'validate', examples], io)).toBe(0);
    expect(io.out).toContain('policies valid');
    const json = captureIo();
    expect(await run(['policy', 'validate', examples, '--json'], json)).toBe(0);
    expect(JSON.parse(json.out)).toEqual({ valid: true, violations: [], errors: [], warnings: [] });
  });

  it('reports the deliberate violations with exit 1 and the JSON shape of the issue', async () => {
    const io = captureIo();
    expect(await run(['policy', 'validate', join(fixtures, 'violation'), '--json'], io)).toBe(1);
    const report = JSON.parse(io.out);
    expect(report.valid).toBe(false);
    expect(report.violations).toEqual([
      {
        file: 'policies/team-platform.yaml',
        key: 'max_classification_shared',
        scope: 'team',
        scopeId: 'platform',
        value: 'restricted',
        parentScope: 'enterprise',
        parentScopeId: 'acme',
        parentValue: 'confidential',
        reason: expect.stringContaining('classification limit'),
      },
      {
        file: 'policies/team-platform.yaml',
        key: 'max_rounds.information_query',
        scope: 'team',
        scopeId: 'platform',
        value: 3,
        parentScope: 'org',
        parentScopeId: 'eng',
        parentValue: 2,
        reason: expect.stringContaining('exceeds the maximum 2'),
      },
    ]);
    const human = captureIo();
    expect(await run(['policy', 'validate', join(fixtures, 'violation')], human)).toBe(1);
    expect(human.err).toContain('2 violation(s)');
  });

  it('reports a policy for an unknown team as a clear error (exit 1)', async () => {
    const io = captureIo();
    expect(await run(['policy', 'validate', join(fixtures, 'unknown-team'), '--json'], io)).toBe(1);
    expect(JSON.parse(io.out).errors).toEqual([
      {
        file: 'policies/team-ghost.yaml',
        kind: 'reference',
        message: "unknown team 'ghost' in tenant 'acme'",
      },
    ]);
  });

  it('exits 2 on malformed YAML and schema errors, naming file and key', async () => {
    const io = captureIo();
    expect(await run(['policy', 'validate', await malformedDir()], io)).toBe(2);
    expect(io.err).toContain('policies/broken.yaml');
    expect(io.err).toContain('malformed YAML');
    expect(io.err).toContain("unknown key 'max_round' in agent-to-agent policy");
  });

  it('warns on a feature-flag name the engine does not know, suggesting the nearest one; --strict fails', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentgov-cli-'));
    tmp.push(dir);
    await writeFile(join(dir, 'directory.yaml'), 'tenant: acme\norgs: {eng: {teams: {platform: [alice]}}}\n');
    await mkdir(join(dir, 'policies'));
    await writeFile(
      join(dir, 'policies/flags.yaml'),
      "scope: enterprise\nscopeId: acme\ndomain: features\nname: flags\nversion: '1.0.0'\ncontent:\n  briefing: true\n  task_discovery: true\n",
    );
    const io = captureIo();
    expect(await run(['policy', 'validate', dir], io)).toBe(0);
    expect(io.err).toContain(
      "policies/flags.yaml: warning: content.briefing: unknown feature flag 'briefing': the engine never asks about it, so it has no effect — did you mean 'briefings'?",
    );
    expect(io.out).toContain('1 policies valid, 1 warning(s)');
    const json = captureIo();
    expect(await run(['policy', 'validate', dir, '--json'], json)).toBe(0);
    expect(JSON.parse(json.out).warnings).toEqual([
      {
        file: 'policies/flags.yaml',
        field: 'content.briefing',
        message: expect.stringContaining("did you mean 'briefings'?"),
        suggestion: 'briefings',
      },
    ]);
    const strict = captureIo();
    expect(await run(['policy', 'validate', dir, '--strict'], strict)).toBe(1);
    expect(strict.err).toContain('--strict');
    expect(await run(['policy', 'validate', dir, '--strict', '--json'], captureIo())).toBe(1);
    // Spelled right: no warning, --strict passes.
    await writeFile(
      join(dir, 'policies/flags.yaml'),
      "scope: enterprise\nscopeId: acme\ndomain: features\nname: flags\nversion: '1.0.0'\ncontent:\n  briefings: true\n",
    );
    const clean = captureIo();
    expect(await run(['policy', 'validate', dir, '--strict'], clean)).toBe(0);
    expect(clean.err).toBe('');
  });

  it('a version YAML reads as a number (version: 1.0) says to quote it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentgov-cli-'));
    tmp.push(dir);
    await writeFile(join(dir, 'directory.yaml'), 'tenant: acme\norgs: {eng: {}}\n');
    await mkdir(join(dir, 'policies'));
    const policy = (version: string) =>
      `scope: enterprise\nscopeId: acme\ndomain: features\nname: flags\nversion: ${version}\ncontent: {briefings: true}\n`;
    await writeFile(join(dir, 'policies/flags.yaml'), policy('1.0   # first'));
    const io = captureIo();
    expect(await run(['policy', 'validate', dir], io)).toBe(2);
    expect(io.err).toContain(
      "policies/flags.yaml: invalid policy: version: 1.0 is a number to YAML, not a version: quote it (version: '1.0.0')",
    );
    await writeFile(join(dir, 'policies/flags.yaml'), policy('2'));
    const two = captureIo();
    expect(await run(['policy', 'validate', dir, '--json'], two)).toBe(2);
    expect(JSON.parse(two.out).errors[0].message).toContain(
      "2 is a number to YAML, not a version: quote it (version: '2.0.0')",
    );
    // Quoted (or a full 1.0.0, which YAML keeps a string) is fine.
    await writeFile(join(dir, 'policies/flags.yaml'), policy("'1.0.0'"));
    expect(await run(['policy', 'validate', dir], captureIo())).toBe(0);
  });

  it('exits 2 on unreadable input and bad arguments', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentgov-cli-'));
    tmp.push(dir);
    const missing = captureIo();
    expect(await run(['policy', 'validate', join(dir, 'nope')], missing)).toBe(2);
    expect(missing.err).toContain('directory.yaml');
    await writeFile(join(dir, 'directory.yaml'), 'tenant: acme\norgs: {eng: {teams: {platform: 7}}}\n');
    const badDir = captureIo();
    expect(await run(['policy', 'validate', dir], badDir)).toBe(2);
    expect(badDir.err).toContain('directory.orgs.eng.teams.platform');
    expect(await run(['policy', 'validate'], captureIo())).toBe(2);
    expect(await run(['policy', 'validate', dir, '--bogus'], captureIo())).toBe(2);
  });

  it('runs as `pnpm exec tsx packages/cli/src/main.ts` from the repo root', () => {
    const ok = spawnSync(
      'pnpm',
      ['exec', 'tsx', 'packages/cli/src/main.ts', 'policy', 'validate', 'examples/policies'],
      {
        cwd: root,
        encoding: 'utf8',
      },
    );
    expect(ok.stderr).toBe('');
    expect(ok.status).toBe(0);
    const bad = spawnSync(
      'pnpm',
      [
        'exec',
        'tsx',
        'packages/cli/src/main.ts',
        'policy',
        'validate',
        'packages/cli/test/fixtures/violation',
      ],
      { cwd: root, encoding: 'utf8' },
    );
    expect(bad.status).toBe(1);
  }, 60_000);
});

describe('agentgov policy decide', () => {
  const decide = async (args: string[]) => {
    const io = captureIo();
    const code = await run(['policy', 'decide', examples, ...args], io);
    return { code, io, decision: code === 0 || code === 1 ? JSON.parse(io.out) : undefined };
  };
  const input = (name: string) => join(examples, 'inputs', name);

  it('decides the models, actions, data and features domains too', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentgov-cli-'));
    try {
      const file = async (name: string, value: unknown) => {
        await writeFile(join(dir, name), JSON.stringify(value));
        return join(dir, name);
      };
      // The example: send_mail needs approval for the enterprise; the platform team blocks it.
      const carol = await decide([
        '--domain',
        'actions',
        '--input',
        await file('a.json', { tool: 'send_mail' }),
        '--user',
        'carol',
      ]);
      expect(carol.decision).toMatchObject({ allow: true, constraints: { autonomy: 'approve' } });
      expect(carol.decision.policyIds.length).toBeGreaterThan(0);
      const alice = await decide([
        '--domain',
        'actions',
        '--input',
        join(dir, 'a.json'),
        '--user',
        'alice',
        '--fail-on-deny',
      ]);
      expect(alice.code).toBe(1);
      expect(alice.decision).toMatchObject({ allow: false, constraints: { autonomy: 'block' } });
      const feature = await decide([
        '--domain',
        'features',
        '--input',
        await file('f.json', { feature: 'briefings' }),
        '--user',
        'bob',
      ]);
      expect(feature.decision.allow).toBe(true);
      for (const [domain, input] of [
        ['models', { provider: 'azure', model: 'gpt-4o', classification_level: 'internal' }],
        ['data', { classification_level: 'restricted' }],
      ] as const) {
        const r = await decide([
          '--domain',
          domain,
          '--input',
          await file(`${domain}.json`, input),
          '--user',
          'bob',
        ]);
        expect(r.code, r.io.err).toBe(0);
        expect(typeof r.decision.allow).toBe('boolean');
      }
      const bad = await decide([
        '--domain',
        'features',
        '--input',
        await file('bad.json', { feature: 'teleport' }),
      ]);
      expect(bad.code).toBe(2);
      expect(bad.io.err).toContain('input.feature');
      expect((await decide(['--domain', 'weather', '--input', join(dir, 'a.json')])).code).toBe(2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('allows an internal information_query within one org, with the user’s round limit', async () => {
    const r = await decide([
      '--domain',
      'agent-to-agent',
      '--input',
      input('a2a-same-org-internal.json'),
      '--user',
      'alice',
    ]);
    expect(r.code).toBe(0);
    expect(r.decision).toEqual({
      allow: true,
      deny: false,
      reason: 'allowed by agent-to-agent policy',
      constraints: { max_rounds: 2, max_classification_shared: 'internal' },
      policyIds: expect.arrayContaining([expect.any(String)]),
    });
    const ent = await decide(['--domain', 'agent-to-agent', '--input', input('a2a-same-org-internal.json')]);
    expect(ent.decision.constraints.max_rounds).toBe(3);
  });

  it('denies confidential data across org units with the spec reason', async () => {
    const r = await decide([
      '--domain',
      'agent-to-agent',
      '--input',
      input('a2a-cross-org-confidential.json'),
      '--user',
      'bob',
    ]);
    expect(r.decision).toMatchObject({
      allow: false,
      deny: true,
      reason: 'confidential data cannot be shared cross-org',
    });
    const failing = await decide([
      '--domain',
      'agent-to-agent',
      '--input',
      input('a2a-cross-org-confidential.json'),
      '--fail-on-deny',
    ]);
    expect(failing.code).toBe(1);
  });

  it('applies the sales org restrictions to carol', async () => {
    const r = await decide([
      '--domain',
      'agent-to-agent',
      '--input',
      input('a2a-same-org-internal.json'),
      '--user',
      'carol',
    ]);
    expect(r.decision).toMatchObject({
      allow: false,
      reason: 'internal data exceeds max_classification_shared public',
    });
  });

  it('decides the tracker rules of the integrations domain', async () => {
    expect(
      (await decide(['--domain', 'integrations', '--input', input('tracker-update.json')])).decision.allow,
    ).toBe(true);
    expect(
      (await decide(['--domain', 'integrations', '--input', input('tracker-transition.json')])).decision
        .allow,
    ).toBe(true);
    const dir = await mkdtemp(join(tmpdir(), 'agentgov-cli-'));
    tmp.push(dir);
    const f = join(dir, 'in.yaml');
    await writeFile(
      f,
      'action: tracker_transition\ncontext: {targetSystem: tracker, additional: {trigger: push}}\n',
    );
    expect((await decide(['--domain', 'integrations', '--input', f])).decision).toMatchObject({
      allow: false,
      deny: true,
    });
  });

  it('exits 2 on unusable input', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentgov-cli-'));
    tmp.push(dir);
    const bad = join(dir, 'bad.json');
    await writeFile(bad, '{"exchange_type": "gossip"}');
    const r = await decide(['--domain', 'agent-to-agent', '--input', bad]);
    expect(r.code).toBe(2);
    expect(r.io.err).toContain('input.exchange_type');
    expect((await decide(['--domain', 'models', '--input', bad])).code).toBe(2);
    expect((await decide(['--domain', 'agent-to-agent'])).code).toBe(2);
    expect((await decide(['--domain', 'agent-to-agent', '--input', join(dir, 'missing.json')])).code).toBe(2);
    const unknown = await decide([
      '--domain',
      'agent-to-agent',
      '--input',
      input('a2a-same-org-internal.json'),
      '--user',
      'mallory',
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.io.err).toContain("unknown user 'mallory'");
    const malformed = captureIo();
    expect(
      await run(
        [
          'policy',
          'decide',
          join(fixtures, 'malformed'),
          '--domain',
          'agent-to-agent',
          '--input',
          input('a2a-same-org-internal.json'),
        ],
        malformed,
      ),
    ).toBe(2);
    expect(malformed.err).toContain('invalid');
  });
});
