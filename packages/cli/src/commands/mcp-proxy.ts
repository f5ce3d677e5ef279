/**
 * `agentgov mcp proxy --config mcp.yaml --policies DIR [--audit-file FILE]`: the governing MCP
 * proxy on stdin/stdout, for desktop assistants. The upstreams and the session's user come from
 * the configuration; decisions from a policy-as-code directory (the built-in engine); every
 * `tool_invocation` entry is appended to a hash-chained audit log of the run (@agentgov/audit)
 * and written as a JSON line to FILE (default: stderr — stdout is the MCP channel). Runs until
 * the assistant closes stdin.
 */
import { appendFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { createAuditLog, generateAuditKeys } from '@agentgov/audit';
import { type AuditEntryInput, InMemoryAuditStore, InMemorySecretStore } from '@agentgov/core';
import { createMcpProxy, loadMcpConfig } from '@agentgov/mcp';
import { bundleEngine, loadPolicyBundle } from '@agentgov/policy';
import { type CliIo, EXIT, parseUsage, UsageError } from '../io';
import { describe } from './policy-common';

const USAGE = 'usage: agentgov mcp proxy --config FILE --policies DIR [--audit-file FILE]';

export default async function mcpProxy(args: string[], io: CliIo): Promise<number> {
  const { values } = parseUsage(parse, args, USAGE);
  if (!values.config) throw new UsageError(`--config FILE is required\n${USAGE}`);
  if (!values.policies)
    throw new UsageError(`--policies DIR is required (the policy-as-code directory)\n${USAGE}`);
  const config = await loadMcpConfig(values.config).catch((error: Error) => {
    throw new UsageError(error.message);
  });
  if (!config.identity)
    throw new UsageError(`${values.config}: identity {tenantId, userId} is required for stdio`);
  const bundle = await loadPolicyBundle(values.policies);
  if (bundle.isErr()) throw new UsageError(describe(bundle.error));
  if (bundle.value.tenantId !== config.identity.tenantId)
    throw new UsageError(
      `the policies are tenant '${bundle.value.tenantId}', the configuration's identity is tenant '${config.identity.tenantId}'`,
    );
  const { engine } = await bundleEngine(bundle.value);

  const keys = await generateAuditKeys();
  const store = new InMemoryAuditStore();
  const log = createAuditLog({
    store,
    secrets: new InMemorySecretStore({
      'audit-commitment-key': keys.commitmentKey,
      'audit-signing-key': keys.signingKey,
    }),
  });
  const file = values['audit-file'];
  const audit = {
    async append(input: AuditEntryInput) {
      const r = await log.append(input);
      if (r.isOk()) {
        const record = await store.get(input.tenantId, r.value.id);
        const line = `${JSON.stringify({ seq: record?.seq, hash: record?.hash, prevHash: record?.prevHash, entry: r.value })}\n`;
        if (file) await appendFile(file, line, 'utf8');
        else io.stderr(line);
      }
      return r;
    },
  };
  const proxy = createMcpProxy(config, {
    engine,
    audit,
    onWarning: (w) => io.stderr(`agentgov mcp: ${w.upstream}${w.tool ? ` ${w.tool}` : ''}: ${w.problem}\n`),
  });
  const { server } = await proxy.serveStdio();
  await new Promise<void>((resolve) => {
    const previous = server.onclose;
    server.onclose = () => {
      previous?.();
      resolve();
    };
    process.stdin.once('end', resolve);
  });
  await proxy.close();
  return EXIT.ok;
}

function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: false,
    strict: true,
    options: {
      config: { type: 'string' },
      policies: { type: 'string' },
      'audit-file': { type: 'string' },
    },
  });
}
