/**
 * Warnings about policy content that is valid but probably not what was meant: a key of a free
 * map with well-known names (`features`) that the engine never asks about — `briefing: true` when
 * the feature is `briefings`. The content is still accepted (other engines may know more names);
 * `agentgov policy validate --strict` fails on them.
 */
import { nearestName, type PolicyDomain } from '@agentgov/core';
import { DOMAIN_LATTICES } from './domains';
import type { LatticeNode } from './lattice-nodes';

export interface PolicyWarning {
  /** The field, as validation errors name it (`content.briefing`). */
  field: string;
  message: string;
  /** The nearest known name, when one is close enough. */
  suggestion?: string;
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
