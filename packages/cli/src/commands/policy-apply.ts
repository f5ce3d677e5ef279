/**
 * `agentgov policy apply DIR --server URL [--token T] [--prune] [--json]`: validates DIR, then
 * creates (POST /policies) and updates (PUT /policies/{id}) the server's policies to match it,
 * enterprise first; with `--prune`, deprecates (DELETE) active server policies DIR no longer has.
 * Every write carries its own `Idempotency-Key`, reused on each retry of that write, so a
 * retried request is replayed by the server instead of applied twice. A write the server refuses
 * for a hierarchy violation is tried once more after the others (a tightened parent may need its
 * children tightened first). Exit 0 applied, 1 a write was refused, 2 unusable input.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { Policy } from '@agentgov/core';
import { type CliIo, EXIT, parseUsage, UsageError } from '../io';
import type { PlanItem } from '../policy-plan';
import { call, ServerError } from '../server-client';
import { planAgainstServer, SERVER_OPTIONS } from './policy-server';

const USAGE = 'usage: agentgov policy apply DIR --server URL [--token TOKEN] [--prune] [--json]';

interface Outcome {
  action: 'create' | 'update' | 'deprecate';
  scope: string;
  scopeId: string;
  domain: string;
  name: string;
  file?: string;
  idempotencyKey: string;
  ok: boolean;
  id?: string;
  status?: number;
  error?: string;
  message?: string;
  detail?: unknown;
}

export default async function policyApply(args: string[], io: CliIo): Promise<number> {
  const parsed = parseUsage(parse, args, USAGE);
  const dir = parsed.positionals[0];
  if (!dir || parsed.positionals.length > 1) throw new UsageError(USAGE);
  const plan = await planAgainstServer(dir, parsed.values, io);
  if ('exit' in plan) return plan.exit;
  const { server } = plan;

  const writes = plan.items.filter((i) => i.action === 'create' || i.action === 'update');
  const removals = parsed.values.prune ? plan.items.filter((i) => i.action === 'remove').reverse() : [];
  const keys = new Map<PlanItem, string>();
  const keyOf = (item: PlanItem) => {
    let key = keys.get(item);
    if (!key) {
      key = randomUUID();
      keys.set(item, key);
    }
    return key;
  };

  async function write(item: PlanItem): Promise<Outcome> {
    const action: Outcome['action'] =
      item.action === 'remove' ? 'deprecate' : (item.action as 'create' | 'update');
    const idempotencyKey = keyOf(item);
    const base = {
      action,
      scope: item.scope,
      scopeId: item.scopeId,
      domain: item.domain,
      name: item.name,
      ...(item.file ? { file: item.file } : {}),
      idempotencyKey,
    };
    try {
      const res =
        item.action === 'create'
          ? await call<Policy>(server, 'POST', '/policies', {
              idempotencyKey,
              body: {
                scope: item.scope,
                scopeId: item.scopeId,
                domain: item.domain,
                name: item.name,
                version: item.version.local,
                content: item.content,
                changeReason: item.changeReason,
              },
            })
          : item.action === 'update'
            ? await call<Policy>(server, 'PUT', `/policies/${encodeURIComponent(item.id as string)}`, {
                idempotencyKey,
                body: { content: item.content, changeReason: item.changeReason, version: item.version.local },
              })
            : await call<Policy>(server, 'DELETE', `/policies/${encodeURIComponent(item.id as string)}`, {
                idempotencyKey,
              });
      return { ...base, ok: true, id: res.body.id, status: res.status };
    } catch (error) {
      if (!(error instanceof ServerError)) throw error;
      return {
        ...base,
        ok: false,
        status: error.status,
        ...(error.code ? { error: error.code } : {}),
        message: error.message,
        ...(error.detail === undefined ? {} : { detail: error.detail }),
      };
    }
  }

  const outcomes = new Map<PlanItem, Outcome>();
  for (const item of writes) outcomes.set(item, await write(item));
  // Second pass, children first: writes refused for the hierarchy that the others may have unblocked.
  const retry = writes.filter((i) => outcomes.get(i)?.error === 'POLICY_HIERARCHY_VIOLATION').reverse();
  // A new request, not a retry of the refused one (whose answer the server would replay): a new key.
  for (const item of retry) {
    keys.delete(item);
    outcomes.set(item, await write(item));
  }
  for (const item of removals) outcomes.set(item, await write(item));

  const results = [...writes, ...removals].map((i) => outcomes.get(i) as Outcome);
  const refused = results.filter((r) => !r.ok);
  const kept = parsed.values.prune ? 0 : plan.items.filter((i) => i.action === 'remove').length;
  const unchanged = plan.items.filter((i) => i.action === 'unchanged').length;
  if (parsed.values.json) {
    io.stdout(
      `${JSON.stringify({ ok: refused.length === 0, tenantId: plan.tenantId, results, unchanged, kept })}\n`,
    );
  } else {
    const past = { create: 'created', update: 'updated', deprecate: 'deprecated' } as const;
    for (const r of results) {
      const what = `${r.scope}/${r.scopeId} ${r.domain} '${r.name}'${r.file ? ` (${r.file})` : ''}`;
      if (r.ok) io.stdout(`${past[r.action]} ${what}: id ${r.id}\n`);
      else io.stderr(`refused ${r.action} ${what}: ${r.message}\n`);
    }
    const count = (a: Outcome['action']) => results.filter((r) => r.ok && r.action === a).length;
    const summary = `${count('create')} created, ${count('update')} updated, ${count('deprecate')} deprecated, ${unchanged} unchanged${kept ? `, ${kept} not in ${dir} kept (--prune deprecates them)` : ''}${refused.length ? `, ${refused.length} refused` : ''}\n`;
    (refused.length ? io.stderr : io.stdout)(summary);
  }
  return refused.length === 0 ? EXIT.ok : EXIT.findings;
}

function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: { ...SERVER_OPTIONS, prune: { type: 'boolean' } },
  });
}
