/**
 * Warnings about policy content that is valid but probably not what was meant: a key of a free
 * map with well-known names (`features`) that the engine never asks about — `briefing: true` when
 * the feature is `briefings`. The content is still accepted (other engines may know more names);
 * `agentgov policy validate --strict` fails on them.
 */
import type { PolicyDomain } from '@agentgov/core';
import { DOMAIN_LATTICES } from './domains';
import type { LatticeNode } from './lattice-nodes';

export interface PolicyWarning {
  /** The field, as validation errors name it (`content.briefing`). */
  field: string;
  message: string;
  /** The nearest known name, when one is close enough. */
  suggestion?: string;
}

/** Edit distance (insertions, deletions, substitutions; an adjacent swap counts 1). */
function distance(a: string, b: string): number {
  const w = b.length + 1;
  const d = new Array<number>((a.length + 1) * w).fill(0);
  const at = (i: number, j: number): number => d[i * w + j] ?? 0;
  for (let i = 0; i <= a.length; i++) d[i * w] = i;
  for (let j = 0; j <= b.length; j++) d[j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, at(i - 2, j - 2) + 1);
      d[i * w + j] = v;
    }
  }
  return at(a.length, b.length);
}

/** The known name nearest to `name` (case and `-`/`_` ignored), if it is close enough to be a slip. */
export function nearestName(name: string, known: readonly string[]): string | undefined {
  const norm = (s: string) => s.toLowerCase().replaceAll('-', '_');
  const n = norm(name);
  let best: { name: string; d: number } | undefined;
  for (const k of known) {
    const kn = norm(k);
    const d = kn.startsWith(n) || n.startsWith(kn) ? Math.min(1, distance(n, kn)) : distance(n, kn);
    if (!best || d < best.d) best = { name: k, d };
  }
  if (!best) return undefined;
  return best.d <= Math.max(2, Math.floor(best.name.length / 3)) ? best.name : undefined;
}

function walk(node: LatticeNode, value: unknown, field: string, out: PolicyWarning[]): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
  const entries = Object.entries(value as Record<string, unknown>);
  if (node.kind === 'object') {
    for (const [k, v] of entries) {
      const child = node.fields[k];
      if (child) walk(child, v, `${field}.${k}`, out);
    }
    return;
  }
  if (node.kind !== 'map') return;
  for (const [k, v] of entries) {
    if (!node.keys && node.known && !node.known.includes(k)) {
      const suggestion = nearestName(k, node.known);
      out.push({
        field: `${field}.${k}`,
        message: `unknown ${node.keyLabel} '${k}': the engine never asks about it, so it has no effect${
          suggestion ? ` — did you mean '${suggestion}'?` : ''
        } (known: ${node.known.join(', ')})`,
        ...(suggestion ? { suggestion } : {}),
      });
    }
    walk(node.child, v, `${field}.${k}`, out);
  }
}

/**
 * The warnings of a domain's parsed content (see the module comment); `[]` when there are none.
 * `prefix` is the field the content is at (`content`).
 */
export function policyContentWarnings(
  domain: PolicyDomain,
  content: unknown,
  prefix = 'content',
): PolicyWarning[] {
  const node = DOMAIN_LATTICES[domain] as LatticeNode | undefined;
  if (!node) return [];
  const out: PolicyWarning[] = [];
  walk(node, content, prefix, out);
  return out;
}
