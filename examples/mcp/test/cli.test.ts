/**
 * `agentgov mcp proxy` as desktop assistants run it: a real SDK client spawns the CLI over stdio,
 * the CLI spawns the notes server over stdio. Also the official MCP Inspector CLI as an outside client.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { refusalOf } from '@agentgov/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';

const here = fileURLToPath(new URL('..', import.meta.url));
const cliMain = fileURLToPath(new URL('../../../packages/cli/src/main.ts', import.meta.url));
/** `node` arguments running `agentgov mcp proxy` on `config` and `policies` (relative to the cwd), auditing to `auditFile`. */
const proxyArgs = (auditFile: string, config = 'mcp.yaml', policies = 'policies') => [
  '--import',
  'tsx',
  cliMain,
  'mcp',
  'proxy',
  '--config',
  config,
  '--policies',
  policies,
  '--audit-file',
  auditFile,
];

// Real processes (tsx, the proxy, the upstream): generous on a loaded two-core CI machine.
describe('agentgov mcp proxy (stdio)', { timeout: 120_000 }, () => {
  it('a real SDK client spawns the proxy; the proxy spawns the upstream; calls are governed and audited', async () => {
    const auditFile = join(await mkdtemp(join(tmpdir(), 'mcp-cli-')), 'audit.jsonl');
    const client = new Client({ name: 'desktop-assistant', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: proxyArgs(auditFile),
        cwd: here,
        stderr: 'pipe',
      }),
    );
    try {
      const names = (await client.listTools()).tools.map((t) => t.name).sort();
      expect(names).toEqual(['notes__read_file', 'notes__search_notes', 'notes__send_message']);
      expect(
        (await client.callTool({ name: 'notes__search_notes', arguments: { query: 'plan' } }))
          .structuredContent,
      ).toEqual({ hits: ['plan.md'] });
      const blocked = await client
        .callTool({ name: 'notes__delete_file', arguments: { path: 'plan.md' } })
        .catch((e: unknown) => e);
      expect(refusalOf(blocked)?.refusal).toBe('policy_denied');
      const approve = await client
        .callTool({ name: 'notes__send_message', arguments: { to: 'bob', text: 'x' } })
        .catch((e: unknown) => e);
      expect(refusalOf(approve)?.refusal).toBe('approval_required');
    } finally {
      await client.close();
    }
    const records = (await readFile(auditFile, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(
      records.map((r) => [r.seq, r.entry.actionType, r.entry.actionDetail.tool, r.entry.outcome]),
    ).toEqual([
      // the write-ahead entry of the call that went upstream, then its outcome
      [1, 'policy_decision', 'notes__search_notes', 'success'],
      [2, 'tool_invocation', 'notes__search_notes', 'success'],
      [3, 'tool_invocation', 'notes__delete_file', 'denied'],
      [4, 'tool_invocation', 'notes__send_message', 'pending_approval'],
    ]);
    expect(records[0].entry.requestId).toBe(records[1].entry.requestId);
    expect(records[1].prevHash).toBe(records[0].hash);
  });
});

describe('agentgov mcp proxy --database (stdio)', () => {
  const run = promisify(execFile);
  /** One assistant session through the proxy on `database`: the approve tool's refusal data. */
  const session = async (database: string) => {
    const client = new Client({ name: 'desktop-assistant', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [...proxyArgs(join(database, '..', 'audit.jsonl')).slice(0, -2), '--database', database],
        cwd: here,
        stderr: 'pipe',
      }),
    );
    try {
      await client.callTool({ name: 'notes__search_notes', arguments: { query: 'plan' } });
      return refusalOf(
        await client
          .callTool({ name: 'notes__send_message', arguments: { to: 'bob', text: 'x' } })
          .catch((e: unknown) => e),
      );
    } finally {
      await client.close();
    }
  };

  it('audits to the tamper-evident log of a PGlite database and keeps the pending approval there across runs', async () => {
    const database = join(await mkdtemp(join(tmpdir(), 'mcp-cli-db-')), 'data');
    const first = await session(database);
    expect(first?.refusal).toBe('approval_required');
    // A second run on the same database answers the same pending approval: it was kept there.
    const second = await session(database);
    expect(second?.approvalId).toBe(first?.approvalId);
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', cliMain, 'audit', 'verify', '--database', database, '--json'],
      { cwd: here, timeout: 60_000 },
    );
    const report = JSON.parse(stdout);
    expect(report.ok).toBe(true);
    expect(report.tenants).toEqual([
      expect.objectContaining({ tenantId: 'acme', ok: true, checked: 6, identifiers: 'checked' }),
    ]);
    // Without --audit-file, nothing but the database receives the records.
    await expect(readFile(join(database, '..', 'audit.jsonl'), 'utf8')).rejects.toThrow();
  }, 240_000); // three processes, each opening PGlite: slow on a loaded two-core machine
});

describe('the official MCP Inspector CLI as an outside client', { timeout: 120_000 }, () => {
  // Its build/index.js, run directly: it reads its own package.json through a path relative to the
  // working directory (`../package.json`), so it runs from src/ and is given absolute paths.
  const inspector = fileURLToPath(
    new URL('../node_modules/@modelcontextprotocol/inspector-cli/build/index.js', import.meta.url),
  );
  const run = promisify(execFile);
  const inspect = async (dir: string, ...method: string[]) => {
    const config = join(dir, 'mcp.yaml');
    await writeFile(
      config,
      (await readFile(join(here, 'mcp.yaml'), 'utf8')).replace(
        /^( *)classification: internal$/m,
        (line, indent: string) => `${line}\n${indent}cwd: ${JSON.stringify(here)}`,
      ),
    );
    const proxy = proxyArgs(join(dir, 'audit.jsonl'), config, join(here, 'policies'));
    // `node` is the target; what follows `--` are its arguments (not the inspector's options).
    const { stdout } = await run(process.execPath, [inspector, process.execPath, ...method, '--', ...proxy], {
      cwd: join(here, 'src'),
      timeout: 60_000,
    });
    return JSON.parse(stdout);
  };

  it('lists the governed tools and calls one through the proxy', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-inspector-'));
    const listed = await inspect(dir, '--method', 'tools/list');
    expect(listed.tools.map((t: { name: string }) => t.name).sort()).toEqual([
      'notes__read_file',
      'notes__search_notes',
      'notes__send_message',
    ]);
    const called = await inspect(
      dir,
      '--method',
      'tools/call',
      '--tool-name',
      'notes__read_file',
      '--tool-arg',
      'path=plan.md',
    );
    expect(called.content).toEqual([{ type: 'text', text: 'Q3 plan: ship the governed MCP proxy' }]);
    const lines = (await readFile(join(dir, 'audit.jsonl'), 'utf8')).trim().split('\n');
    expect(JSON.parse(lines.at(-1) as string).entry.actionDetail).toMatchObject({
      tool: 'notes__read_file',
      decision: 'notify',
    });
  });
});
