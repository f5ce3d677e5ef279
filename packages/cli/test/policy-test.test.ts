/**
 * `agentgov policy test` (issue 15): YAML decision tests next to the policies, run like `opa
 * test`; exit 1 on a failing test; JUnit XML for CI checked with a real XML parser.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../src/index';
import { captureIo } from './capture-io';

const fixture = fileURLToPath(new URL('./fixtures/policy-tests', import.meta.url));
const tmp: string[] = [];
afterAll(async () => {
  for (const d of tmp) await rm(d, { recursive: true, force: true });
});

/** The fixture plus extra test files (written here so the committed fixture stays all-green). */
async function withTests(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agentgov-policy-test-'));
  tmp.push(dir);
  await cp(fixture, dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, 'tests', name), text);
  return dir;
}

const FAILING = `domain: actions
tests:
  - name: wire_money <is> "allowed" & more
    input: { tool: wire_money }
    expect: allow
  - name: send_mail needs approval
    input: { tool: send_mail }
    expect: allow
    reason: autonomy approve
    constraints: { autonomy: approve }
  - name: eng round limit is 5
    domain: agent-to-agent
    user: alice
    inputFile: ../inputs/same-org-internal.json
    expect: allow
    constraints: { max_rounds: 5 }
`;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  isArray: (n) => ['testsuite', 'testcase'].includes(n),
});

describe('agentgov policy test', () => {
  it('passes the fixture tests (exit 0) and lists them with --verbose', async () => {
    const io = captureIo();
    expect(await run(['policy', 'test', fixture], io), io.err).toBe(0);
    expect(io.out.trim()).toBe('PASS: 5/5');
    const verbose = captureIo();
    expect(await run(['policy', 'test', fixture, '-v'], verbose)).toBe(0);
    expect(verbose.out).toMatch(/tests\/a2a\.yaml:\n {2}PASS: same-org internal query is allowed/);
    expect(verbose.out).toContain('PASS: wire_money is blocked');
  });

  it('reports failures with what was expected (exit 1), as text and JSON', async () => {
    const dir = await withTests({ 'failing.yaml': FAILING });
    const io = captureIo();
    expect(await run(['policy', 'test', dir], io)).toBe(1);
    expect(io.err).toContain('FAIL: wire_money <is> "allowed" & more');
    expect(io.err).toMatch(/expected allow, got deny/);
    expect(io.err).toContain('expected constraint max_rounds = 5, got 2');
    expect(io.err).toContain('PASS: 6/8');
    expect(io.err).toContain('FAIL: 2/8');

    const json = captureIo();
    expect(await run(['policy', 'test', dir, '--format', 'json'], json)).toBe(1);
    const report = JSON.parse(json.out);
    expect(report).toMatchObject({ ok: false, total: 8, passed: 6, failed: 2 });
    const failing = report.files.find((f: { file: string }) => f.file === 'tests/failing.yaml');
    expect(failing.tests.map((t: { ok: boolean }) => t.ok)).toEqual([false, true, false]);
    expect(failing.tests[0]).toMatchObject({ expected: { decision: 'allow' }, actual: { allow: false } });
  });

  it('writes well-formed JUnit XML with the right counts (--junit FILE and --format junit)', async () => {
    const dir = await withTests({ 'failing.yaml': FAILING });
    const file = join(dir, 'report.xml');
    const io = captureIo();
    expect(await run(['policy', 'test', dir, '--junit', file], io)).toBe(1);
    const xml = await readFile(file, 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    const doc = parser.parse(xml);
    expect(doc.testsuites).toMatchObject({
      name: 'agentgov policy test',
      tests: '8',
      failures: '2',
      errors: '0',
    });
    const suites = doc.testsuites.testsuite as {
      name: string;
      tests: string;
      failures: string;
      testcase: unknown[];
    }[];
    expect(suites.map((s) => [s.name, s.tests, s.failures])).toEqual([
      ['tests/a2a.yaml', '3', '0'],
      ['tests/actions.yaml', '2', '0'],
      ['tests/failing.yaml', '3', '2'],
    ]);
    const cases = suites[2]?.testcase as { name: string; failure?: { message: string } }[];
    expect(cases[0]?.name).toBe('wire_money <is> "allowed" & more'); // escaped, read back intact
    expect(cases[0]?.failure?.message).toMatch(/^expected allow, got deny/);
    expect(cases[1]?.failure).toBeUndefined();

    const stdout = captureIo();
    expect(await run(['policy', 'test', fixture, '--format', 'junit'], stdout)).toBe(0);
    expect(XMLValidator.validate(stdout.out)).toBe(true);
    expect(parser.parse(stdout.out).testsuites).toMatchObject({ tests: '5', failures: '0' });
  });

  it('--run keeps the tests whose "<file>/<name>" matches', async () => {
    const io = captureIo();
    expect(await run(['policy', 'test', fixture, '--run', 'actions.yaml/wire', '--format', 'json'], io)).toBe(
      0,
    );
    const report = JSON.parse(io.out);
    expect(report.total).toBe(1);
    expect(report.files[0].tests[0].name).toBe('wire_money is blocked');
    const none = captureIo();
    expect(await run(['policy', 'test', fixture, '--run', 'nothing-matches-this'], none)).toBe(2);
    expect(none.err).toContain('no test matched --run');
  });

  it('refuses unusable test files with exit 2, naming file and test', async () => {
    const cases: [string, RegExp][] = [
      ['tests:\n  - name: x\n    input: { tool: a }\n    expect: maybe\n', /tests\.0\.expect/],
      [
        'domain: actions\ntests:\n  - name: x\n    expect: allow\n',
        /give exactly one of 'input' and 'inputFile'/,
      ],
      ['tests:\n  - name: x\n    input: { tool: a }\n    expect: allow\n', /test 'x': no domain/],
      [
        'domain: actions\ntests:\n  - name: x\n    user: nobody\n    input: { tool: a }\n    expect: allow\n',
        /unknown user 'nobody'/,
      ],
      [
        'domain: agent-to-agent\ntests:\n  - name: x\n    input: { exchange_type: 1 }\n    expect: allow\n',
        /test 'x': input: /,
      ],
      [
        'domain: actions\ntests:\n  - { name: x, input: { tool: a }, expect: allow }\n  - { name: x, input: { tool: b }, expect: allow }\n',
        /used twice/,
      ],
      ['domain: actions\ntests: [\n', /bad\.yaml/],
      [
        'domain: actions\ntests:\n  - name: x\n    inputFile: ../inputs/missing.json\n    expect: allow\n',
        /cannot read/,
      ],
    ];
    for (const [text, message] of cases) {
      const dir = await withTests({ 'bad.yaml': text });
      const io = captureIo();
      expect(await run(['policy', 'test', dir], io), text).toBe(2);
      expect(io.err, text).toMatch(message);
    }
  });

  it('exit 2 without tests, with invalid policies, or with a bad --format', async () => {
    const examples = fileURLToPath(new URL('../../../examples/policies', import.meta.url));
    const none = captureIo();
    expect(await run(['policy', 'test', examples], none)).toBe(2);
    expect(none.err).toContain('no test files in');
    const malformed = captureIo();
    expect(
      await run(
        ['policy', 'test', fileURLToPath(new URL('./fixtures/malformed', import.meta.url))],
        malformed,
      ),
    ).toBe(2);
    expect(malformed.err).toContain('invalid');
    const format = captureIo();
    expect(await run(['policy', 'test', fixture, '--format', 'tap'], format)).toBe(2);
    expect(format.err).toContain('--format must be text, json or junit');
  });
});
