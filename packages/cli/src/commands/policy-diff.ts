/**
 * `agentgov policy diff DIR --server URL [--token T] [--json]`: what `policy apply` would change
 * on the server, per policy (create, update, remove) with a content diff. Exit 0 no differences,
 * 1 differences (as `git diff --exit-code`), 2 unusable input or an unreachable/refusing server.
 */
import { parseArgs } from 'node:util';
import { type CliIo, EXIT, parseUsage, UsageError } from '../io';
import { renderPlan } from '../policy-plan';
import { planAgainstServer, SERVER_OPTIONS } from './policy-server';

const USAGE = 'usage: agentgov policy diff DIR --server URL [--token TOKEN] [--json]';

export default async function policyDiff(args: string[], io: CliIo): Promise<number> {
  const parsed = parseUsage(parse, args, USAGE);
  const dir = parsed.positionals[0];
  if (!dir || parsed.positionals.length > 1) throw new UsageError(USAGE);
  const plan = await planAgainstServer(dir, parsed.values, io);
  if ('exit' in plan) return plan.exit;
  const changes = plan.items.some((i) => i.action !== 'unchanged');
  if (parsed.values.json) {
    io.stdout(
      `${JSON.stringify({ changes, tenantId: plan.tenantId, items: plan.items.map(({ content: _c, changeReason: _r, ...i }) => i) })}\n`,
    );
  } else {
    io.stdout(renderPlan(plan.items, { prune: true }));
  }
  return changes ? EXIT.findings : EXIT.ok;
}

function parse(args: string[]) {
  return parseArgs({ args, allowPositionals: true, strict: true, options: SERVER_OPTIONS });
}
