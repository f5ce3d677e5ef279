/**
 * `agentgov policy test DIR [--run REGEX] [--format text|json|junit] [--junit FILE] [-v]`: runs
 * the decision tests in `DIR/tests/**\/*.yaml` against the policies of DIR (the built-in engine,
 * as `policy decide`), like `opa test` runs `_test.rego` files. Exit 0 every test passed, 1 a
 * test failed, 2 unusable input (invalid policies or test files, no tests).
 */
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import {
  canonicalJson,
  DECISION_DOMAINS,
  DECISION_INPUT_SCHEMAS,
  type Decision,
  type DecisionDomain,
  type DecisionRequest,
  validationErrorFromZod,
} from '@agentgov/core';
import { bundleEngine, loadPolicyBundle, MAX_POLICY_FILE_BYTES, parseYaml } from '@agentgov/policy';
import { z } from 'zod';
import { type CliIo, EXIT, parseUsage, UsageError } from '../io';
import { type JunitSuite, junitXml } from '../junit';
import { describe } from './policy-common';

const USAGE =
  'usage: agentgov policy test DIR [--run REGEX] [--format text|json|junit] [--junit FILE] [--verbose]';

const Domain = z.enum(DECISION_DOMAINS as unknown as [DecisionDomain, ...DecisionDomain[]]);
const TestCaseSchema = z.strictObject({
  name: z.string().min(1).max(255),
  domain: Domain.optional(),
  user: z.string().min(1).max(255).optional(),
  input: z.record(z.string(), z.unknown()).optional(),
  inputFile: z.string().min(1).optional(),
  expect: z.enum(['allow', 'deny']),
  reason: z.string().min(1).optional(),
  constraints: z.record(z.string(), z.unknown()).optional(),
});
const TestFileSchema = z.strictObject({
  name: z.string().min(1).max(255).optional(),
  domain: Domain.optional(),
  user: z.string().min(1).max(255).optional(),
  tests: z.array(TestCaseSchema).min(1),
});

interface PreparedCase {
  name: string;
  request: DecisionRequest;
  expect: 'allow' | 'deny';
  reason?: string;
  constraints?: Record<string, unknown>;
}

interface CaseResult {
  name: string;
  ok: boolean;
  ms: number;
  expected: { decision: 'allow' | 'deny'; reason?: string; constraints?: Record<string, unknown> };
  actual: Pick<Decision, 'allow' | 'reason' | 'constraints'>;
  /** What did not hold (failures only). */
  problems: string[];
}

async function testFiles(dir: string): Promise<string[]> {
  const root = join(dir, 'tests');
  const out: string[] = [];
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.isFile() && /\.ya?ml$/.test(e.name)) out.push(p);
    }
  };
  try {
    await walk(root);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return out.sort();
}

async function readData(path: string, what: string): Promise<unknown> {
  let text: string;
  try {
    if ((await stat(path)).size > MAX_POLICY_FILE_BYTES)
      throw new Error(`larger than ${MAX_POLICY_FILE_BYTES} bytes`);
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${what}: ${(error as Error).message}`);
  }
  const raw = parseYaml(text, 'file');
  if (raw.isErr()) throw new UsageError(`${what}: ${raw.error.message}`);
  return raw.value;
}

const issues = (error: z.ZodError, raw: unknown): string =>
  validationErrorFromZod(error, raw, '')
    .detail.map((i) => `${i.field}: ${i.message}`)
    .join('; ');

/** Reads and checks one test file; every problem is unusable input (exit 2). */
async function prepare(
  path: string,
  file: string,
  tenantId: string,
  users: readonly string[],
): Promise<{ name: string; cases: PreparedCase[] }> {
  const raw = await readData(path, file);
  const parsed = TestFileSchema.safeParse(raw);
  if (!parsed.success) throw new UsageError(`${file}: ${issues(parsed.error, raw)}`);
  const names = new Set<string>();
  const cases: PreparedCase[] = [];
  for (const [i, t] of parsed.data.tests.entries()) {
    const where = `${file}: test '${t.name}'`;
    if (names.has(t.name)) throw new UsageError(`${where}: the name is used twice in this file`);
    names.add(t.name);
    const domain = t.domain ?? parsed.data.domain;
    if (!domain) throw new UsageError(`${where}: no domain (set 'domain' on the test or the file)`);
    if ((t.input === undefined) === (t.inputFile === undefined)) {
      throw new UsageError(`${where}: give exactly one of 'input' and 'inputFile'`);
    }
    const rawInput =
      t.input ?? (await readData(resolve(dirname(path), t.inputFile as string), `${where}: inputFile`));
    const input = DECISION_INPUT_SCHEMAS[domain].safeParse(rawInput);
    if (!input.success) throw new UsageError(`${where}: input: ${issues(input.error, rawInput)}`);
    const user = t.user ?? parsed.data.user;
    if (user !== undefined && !users.includes(user)) {
      throw new UsageError(`${where}: unknown user '${user}' in tenant '${tenantId}'`);
    }
    cases.push({
      name: t.name || `test ${i + 1}`,
      // No user: the enterprise's effective policy, asked for explicitly.
      request: {
        domain,
        tenantId,
        input: input.data,
        ...(user ? { userId: user } : { scope: 'enterprise' }),
      } as DecisionRequest,
      expect: t.expect,
      ...(t.reason ? { reason: t.reason } : {}),
      ...(t.constraints ? { constraints: t.constraints } : {}),
    });
  }
  return { name: parsed.data.name ?? file, cases };
}

function check(c: PreparedCase, d: Decision): string[] {
  const problems: string[] = [];
  const got = d.allow ? 'allow' : 'deny';
  if (got !== c.expect) problems.push(`expected ${c.expect}, got ${got} (${d.reason})`);
  if (c.reason !== undefined && !d.reason.includes(c.reason)) {
    problems.push(
      `expected the reason to contain ${JSON.stringify(c.reason)}, got ${JSON.stringify(d.reason)}`,
    );
  }
  const constraints = d.constraints as Record<string, unknown>;
  for (const [key, want] of Object.entries(c.constraints ?? {})) {
    const have = constraints[key];
    if (have === undefined || canonicalJson(have) !== canonicalJson(want)) {
      problems.push(
        `expected constraint ${key} = ${JSON.stringify(want)}, got ${have === undefined ? 'none' : JSON.stringify(have)}`,
      );
    }
  }
  return problems;
}

export default async function policyTest(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseUsage(parse, args, USAGE);
  const dir = positionals[0];
  if (!dir || positionals.length > 1) throw new UsageError(USAGE);
  const format = values.format ?? 'text';
  if (!['text', 'json', 'junit'].includes(format))
    throw new UsageError(`--format must be text, json or junit\n${USAGE}`);
  let filter: RegExp | undefined;
  try {
    filter = values.run === undefined ? undefined : new RegExp(values.run);
  } catch (error) {
    throw new UsageError(`--run: ${(error as Error).message}`);
  }

  const bundle = await loadPolicyBundle(dir);
  if (bundle.isErr()) throw new UsageError(describe(bundle.error));
  const invalid = bundle.value.errors.filter((e) => e.kind === 'invalid');
  if (invalid.length > 0) {
    throw new UsageError(
      `${invalid.length} policy file(s) are invalid (run agentgov policy validate ${dir}): ${invalid.map((e) => `${e.file}: ${e.message}`).join('; ')}`,
    );
  }
  const { tenantId } = bundle.value;
  const users = await bundle.value.directory.users(tenantId);
  const paths = await testFiles(dir);
  if (paths.length === 0) throw new UsageError(`no test files in ${join(dir, 'tests')} (*.yaml)`);
  const files: { file: string; name: string; cases: PreparedCase[] }[] = [];
  for (const path of paths) {
    const file = relative(dir, path).split(sep).join('/');
    const prepared = await prepare(path, file, tenantId, users);
    const cases = prepared.cases.filter((c) => !filter || filter.test(`${file}/${c.name}`));
    if (cases.length > 0) files.push({ file, name: prepared.name, cases });
  }
  if (files.length === 0) throw new UsageError(`no test matched --run ${values.run}`);

  const { engine } = await bundleEngine(bundle.value);
  const results: { file: string; name: string; tests: CaseResult[] }[] = [];
  for (const f of files) {
    const tests: CaseResult[] = [];
    for (const c of f.cases) {
      const started = performance.now();
      const decided = await engine.decide(c.request);
      if (decided.isErr()) throw new UsageError(`${f.file}: test '${c.name}': ${decided.error.message}`);
      const d = decided.value;
      const problems = check(c, d);
      tests.push({
        name: c.name,
        ok: problems.length === 0,
        ms: performance.now() - started,
        expected: {
          decision: c.expect,
          ...(c.reason ? { reason: c.reason } : {}),
          ...(c.constraints ? { constraints: c.constraints } : {}),
        },
        actual: { allow: d.allow, reason: d.reason, constraints: d.constraints },
        problems,
      });
    }
    results.push({ file: f.file, name: f.name, tests });
  }

  const all = results.flatMap((r) => r.tests);
  const failed = all.filter((t) => !t.ok).length;
  const junit = () =>
    junitXml(
      'agentgov policy test',
      results.map(
        (r): JunitSuite => ({
          name: r.file,
          cases: r.tests.map((t) => ({
            name: t.name,
            time: t.ms / 1000,
            ...(t.ok
              ? {}
              : { failure: { message: t.problems[0] ?? 'failed', detail: t.problems.join('\n') } }),
          })),
        }),
      ),
    );
  if (values.junit) {
    try {
      await writeFile(values.junit, junit());
    } catch (error) {
      throw new UsageError(`cannot write --junit ${values.junit}: ${(error as Error).message}`);
    }
  }
  if (format === 'junit') io.stdout(junit());
  else if (format === 'json') {
    io.stdout(
      `${JSON.stringify({
        ok: failed === 0,
        total: all.length,
        passed: all.length - failed,
        failed,
        files: results.map((r) => ({
          file: r.file,
          name: r.name,
          tests: r.tests.map(({ ms: _ms, problems, ...t }) => (t.ok ? t : { ...t, problems })),
        })),
      })}\n`,
    );
  } else {
    const lines: string[] = [];
    for (const r of results) {
      const shown = r.tests.filter((t) => !t.ok || values.verbose);
      if (shown.length === 0) continue;
      lines.push(`${r.file}:`);
      for (const t of shown) {
        lines.push(`  ${t.ok ? 'PASS' : 'FAIL'}: ${t.name} (${t.ms.toFixed(1)}ms)`);
        for (const p of t.problems) lines.push(`    ${p}`);
      }
    }
    if (lines.length > 0) lines.push('-'.repeat(80));
    lines.push(`PASS: ${all.length - failed}/${all.length}`);
    if (failed > 0) lines.push(`FAIL: ${failed}/${all.length}`);
    (failed > 0 ? io.stderr : io.stdout)(`${lines.join('\n')}\n`);
  }
  return failed === 0 ? EXIT.ok : EXIT.findings;
}

function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      run: { type: 'string' },
      format: { type: 'string' },
      junit: { type: 'string' },
      verbose: { type: 'boolean', short: 'v' },
    },
  });
}
