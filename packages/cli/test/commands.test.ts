/**
 * The command tree (issue 14): every command and group answers --help, --version prints the
 * package version, an unknown command or flag is an error (exit 2) with a suggestion.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type CliIo, run } from '../src/index';

function io() {
  const out: string[] = [];
  const err: string[] = [];
  const value: CliIo = { stdout: (t) => out.push(t), stderr: (t) => err.push(t), env: {}, isTTY: false };
  return { io: value, out: () => out.join(''), err: () => err.join('') };
}

const COMMANDS = [
  ['policy', 'validate'],
  ['policy', 'decide'],
  ['policy', 'test'],
  ['policy', 'diff'],
  ['policy', 'apply'],
  ['audit', 'verify'],
  ['audit', 'prove'],
  ['audit', 'verify-proof'],
  ['db', 'migrate'],
];

describe('agentgov command tree', () => {
  it('--version prints the package version', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    for (const flag of ['--version', '-V']) {
      const t = io();
      expect(await run([flag], t.io)).toBe(0);
      expect(t.out().trim()).toBe(version);
    }
  });

  it('answers --help at the top, for each group and for each command (exit 0)', async () => {
    const top = io();
    expect(await run(['--help'], top.io)).toBe(0);
    for (const [group] of COMMANDS) expect(top.out()).toContain(group);
    for (const [group, verb] of COMMANDS) {
      const g = io();
      expect(await run([group!, '--help'], g.io)).toBe(0);
      expect(g.out()).toContain(verb);
      const c = io();
      expect(await run([group!, verb!, '--help'], c.io)).toBe(0);
      expect(c.out()).toContain(`Usage: agentgov ${group} ${verb}`);
      expect(c.out()).toContain('--help');
    }
    const verify = io();
    await run(['audit', 'verify', '-h'], verify.io);
    expect(verify.out()).toContain('--public-key <file>');
  });

  it('refuses an unknown flag with a suggestion (exit 2), before doing anything', async () => {
    const t = io();
    expect(await run(['audit', 'verify', '--databse', 'x'], t.io)).toBe(2);
    expect(t.err()).toMatch(/unknown option '--databse'/);
    expect(t.err()).toMatch(/Did you mean --database\?/);
  });

  it('refuses an unknown command with a suggestion, and no command with the help (exit 2)', async () => {
    const t = io();
    expect(await run(['audit', 'verfy'], t.io)).toBe(2);
    expect(t.err()).toMatch(/unknown command 'verfy'/);
    expect(t.err()).toMatch(/Did you mean verify\?/);
    const none = io();
    expect(await run([], none.io)).toBe(2);
    expect(none.err()).toContain('Usage: agentgov');
  });
});
