/**
 * What applying a policy directory to a server would do: each active policy of the directory is
 * matched with the server's active policy of the same (scope, scopeId, domain, name); a new one
 * is created, one whose content (compared as parsed values, not as text) or version differs is
 * updated, and a server policy the directory no longer has is a removal (deprecated by `apply
 * --prune`).
 */
import { canonicalJson, type Policy } from '@agentgov/core';
import { type PolicyBundle, type PolicyDocument, parsePolicyContent, toYaml } from '@agentgov/policy';
import { UsageError } from './io';

type PlanAction = 'create' | 'update' | 'remove' | 'unchanged';

export interface PlanItem {
  action: PlanAction;
  scope: string;
  scopeId: string;
  domain: string;
  name: string;
  /** The directory's file (absent for a removal). */
  file?: string;
  /** The server policy's id (absent for a creation). */
  id?: string;
  version: { server?: string; local?: string };
  /** Content lines: `+ ` added, `- ` removed, `  ` kept (create, update, remove only). */
  diff?: string[];
  /** What a write sends (create, update). */
  content?: string;
  changeReason?: string;
}

const RANK: Record<string, number> = { enterprise: 0, org: 1, team: 2, user: 3 };
const identity = (p: { scope: string; scopeId: string; domain: string; name: string }) =>
  JSON.stringify([p.scope, p.scopeId, p.domain, p.name]);

/** Enterprise first, then org, team, user; then scope id, domain, name. */
function byScope(a: PlanItem, b: PlanItem): number {
  return (
    (RANK[a.scope] ?? 9) - (RANK[b.scope] ?? 9) ||
    a.scopeId.localeCompare(b.scopeId) ||
    a.domain.localeCompare(b.domain) ||
    a.name.localeCompare(b.name)
  );
}

/** A line diff (longest common subsequence; policy contents are small). */
function lineDiff(before: string, after: string): string[] {
  const a = before === '' ? [] : before.replace(/\n$/, '').split('\n');
  const b = after === '' ? [] : after.replace(/\n$/, '').split('\n');
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      const row = lcs[i] as number[];
      row[j] =
        a[i] === b[j]
          ? ((lcs[i + 1] as number[])[j + 1] as number) + 1
          : Math.max((lcs[i + 1] as number[])[j] as number, row[j + 1] as number);
    }
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push(`  ${a[i]}`);
      i++;
      j++;
    } else if (((lcs[i + 1] as number[])[j] as number) >= ((lcs[i] as number[])[j + 1] as number)) {
      out.push(`- ${a[i++]}`);
    } else {
      out.push(`+ ${b[j++]}`);
    }
  }
  while (i < a.length) out.push(`- ${a[i++]}`);
  while (j < b.length) out.push(`+ ${b[j++]}`);
  return out;
}

/** The server content as YAML of its parsed value (so formatting and key order never show as changes). */
function normalized(policy: Policy): { yaml: string; canonical: string | undefined } {
  const parsed = parsePolicyContent(policy.domain as never, policy.content);
  if (parsed.isErr()) return { yaml: policy.content, canonical: undefined };
  return { yaml: toYaml(parsed.value), canonical: canonicalJson(parsed.value) };
}

export function computePlan(bundle: PolicyBundle, server: readonly Policy[]): PlanItem[] {
  const local = new Map<string, PolicyDocument>();
  for (const doc of bundle.policies) {
    if (doc.status !== 'active') continue;
    const id = identity(doc);
    const other = local.get(id);
    if (other) {
      throw new UsageError(
        `${doc.file} and ${other.file} are the same policy (${doc.scope} '${doc.scopeId}', ${doc.domain}, '${doc.name}')`,
      );
    }
    local.set(id, doc);
  }
  const remote = new Map<string, Policy>();
  const items: PlanItem[] = [];
  for (const p of server) {
    if (p.status !== 'active') continue;
    const id = identity(p);
    if (!remote.has(id) && local.has(id)) {
      remote.set(id, p);
      continue;
    }
    items.push({
      action: 'remove',
      scope: p.scope,
      scopeId: p.scopeId,
      domain: p.domain,
      name: p.name,
      id: p.id,
      version: { server: p.version },
      diff: lineDiff(normalized(p).yaml, ''),
    });
  }
  for (const [id, doc] of local) {
    const content = toYaml(doc.content);
    const changeReason = doc.changeReason ?? `agentgov policy apply: ${doc.file}`;
    const base = {
      scope: doc.scope,
      scopeId: doc.scopeId,
      domain: doc.domain,
      name: doc.name,
      file: doc.file,
    };
    const p = remote.get(id);
    if (!p) {
      items.push({
        ...base,
        action: 'create',
        version: { local: doc.version },
        diff: lineDiff('', content),
        content,
        changeReason,
      });
      continue;
    }
    const theirs = normalized(p);
    const same = theirs.canonical === canonicalJson(doc.content) && p.version === doc.version;
    items.push({
      ...base,
      action: same ? 'unchanged' : 'update',
      id: p.id,
      version: { server: p.version, local: doc.version },
      ...(same ? {} : { diff: lineDiff(theirs.yaml, content), content, changeReason }),
    });
  }
  return items.sort(byScope);
}

/** One line per item, its diff indented below it; a summary line last. */
export function renderPlan(items: readonly PlanItem[], options: { prune: boolean }): string {
  const lines: string[] = [];
  const mark = { create: '+', update: '~', remove: '-', unchanged: '=' } as const;
  for (const it of items) {
    if (it.action === 'unchanged') continue;
    const version =
      it.action === 'update' && it.version.server !== it.version.local
        ? `${it.version.server} -> ${it.version.local}`
        : (it.version.local ?? it.version.server);
    const where = [it.file, it.id ? `id ${it.id}` : undefined].filter(Boolean).join(', ');
    const note =
      it.action === 'remove' ? (options.prune ? '' : ' [kept: apply deprecates it only with --prune]') : '';
    lines.push(
      `${mark[it.action]} ${it.action} ${it.scope}/${it.scopeId} ${it.domain} '${it.name}' ${version} (${where})${note}`,
    );
    for (const d of it.diff ?? []) lines.push(`    ${d}`);
  }
  const count = (a: PlanAction) => items.filter((i) => i.action === a).length;
  lines.push(
    `${count('create')} to create, ${count('update')} to update, ${count('remove')} to remove, ${count('unchanged')} unchanged`,
  );
  return `${lines.join('\n')}\n`;
}
