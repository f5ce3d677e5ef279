/**
 * The restriction lattice, described once per domain as a tree of typed nodes. Everything else —
 * the zod schema of the content, the order `⊑` ("at least as restrictive as"), the meet, the
 * hierarchy violations and their reasons — is derived from that one description.
 *
 * Values are plain YAML/JSON values; an absent key (`undefined`) is the top of its node (the most
 * permissive value: "inherit"), so `meet(undefined, x) = x` and `x ⊑ undefined` for every `x`.
 */
import { CLASSIFICATION_LEVELS, type ClassificationLevel, classificationOrder } from '@agentgov/core';
import type { LatticeNode } from './lattice-nodes';

export * from './lattice-nodes';

// ---------------------------------------------------------------------------------------------
// Helpers

type Dict = Record<string, unknown>;
const isDict = (v: unknown): v is Dict => typeof v === 'object' && v !== null && !Array.isArray(v);
const asList = (v: unknown): readonly string[] => (Array.isArray(v) ? (v as string[]) : []);

/** Sorted, de-duplicated copy of a list: enum order for closed lists, code-point order otherwise. */
function canonicalList(values: readonly string[] | undefined, list: readonly string[]): string[] {
  const unique = [...new Set(list)];
  if (values) return unique.sort((a, b) => values.indexOf(a) - values.indexOf(b));
  return unique.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The child node of a map or object node under `key` (undefined for leaves / unknown keys). */
export function childNode(node: LatticeNode, key: string): LatticeNode | undefined {
  if (node.kind === 'map') return node.keys && !node.keys.includes(key) ? undefined : node.child;
  if (node.kind === 'object') return Object.hasOwn(node.fields, key) ? node.fields[key] : undefined;
  return undefined;
}

/** The node at `path` below `node`. */
export function nodeAt(node: LatticeNode, path: readonly string[]): LatticeNode | undefined {
  let cur: LatticeNode | undefined = node;
  for (const key of path) {
    if (!cur) return undefined;
    cur = childNode(cur, key);
  }
  return cur;
}

/** The value at `path` of a content value (undefined when any step is absent). */
export function valueAt(value: unknown, path: readonly string[]): unknown {
  let cur = value;
  for (const key of path) {
    if (!isDict(cur)) return undefined;
    cur = cur[key];
  }
  return cur;
}

export function isLeaf(node: LatticeNode): boolean {
  return node.kind !== 'map' && node.kind !== 'object';
}

/** Sorted, de-duplicated lists; empty maps kept (they mean "no further restriction"). */
export function normalize(node: LatticeNode, value: unknown): unknown {
  if (value === undefined) return undefined;
  switch (node.kind) {
    case 'allowList':
    case 'denyList':
      return canonicalList(node.values, asList(value));
    case 'map':
    case 'object': {
      if (!isDict(value)) return value;
      const out: Dict = {};
      for (const [k, v] of Object.entries(value)) {
        const child = childNode(node, k);
        if (child && v !== undefined) out[k] = normalize(child, v);
      }
      return out;
    }
    default:
      return value;
  }
}

/** True when `value` is the most permissive value of `node` (equivalent to leaving it unset). */
export function isTop(node: LatticeNode, value: unknown): boolean {
  if (value === undefined) return true;
  switch (node.kind) {
    case 'level':
      return value === CLASSIFICATION_LEVELS[CLASSIFICATION_LEVELS.length - 1];
    case 'levelFloor':
      return value === CLASSIFICATION_LEVELS[0];
    case 'allowList':
      return node.values?.every((v) => asList(value).includes(v)) ?? false;
    case 'denyList':
      return asList(value).length === 0;
    case 'numericMax':
      return false;
    case 'numericMin':
      return (value as number) <= node.floor;
    case 'grant':
      return value === true;
    case 'obligation':
      return value === false;
    case 'ordinal':
      return value === node.order[0];
    case 'map':
    case 'object':
      return (
        isDict(value) &&
        Object.entries(value).every(([k, v]) => {
          const child = childNode(node, k);
          return child ? isTop(child, v) : true;
        })
      );
  }
}

const levelOrder = (v: unknown): number => classificationOrder(v as ClassificationLevel);

/**
 * `a ⊑ b`: `a` is at least as restrictive as `b` (absent = top). This is the order the hierarchy
 * enforces: a child value must be ⊑ its parent chain's effective value.
 */
export function leq(node: LatticeNode, a: unknown, b: unknown): boolean {
  if (b === undefined) return true;
  if (a === undefined) return isTop(node, b);
  switch (node.kind) {
    case 'level':
      return levelOrder(a) <= levelOrder(b);
    case 'levelFloor':
      return levelOrder(a) >= levelOrder(b);
    case 'allowList': {
      const allowed = asList(b);
      return asList(a).every((v) => allowed.includes(v));
    }
    case 'denyList': {
      const denied = asList(a);
      return asList(b).every((v) => denied.includes(v));
    }
    case 'numericMax':
      return (a as number) <= (b as number);
    case 'numericMin':
      return (a as number) >= (b as number);
    case 'grant':
      return a === false || b === true;
    case 'obligation':
      return a === true || b === false;
    case 'ordinal':
      return node.order.indexOf(a as string) >= node.order.indexOf(b as string);
    case 'map':
    case 'object': {
      const da = isDict(a) ? a : {};
      const db = isDict(b) ? b : {};
      for (const k of Object.keys(db)) {
        const child = childNode(node, k);
        if (child && !leq(child, da[k], db[k])) return false;
      }
      return true;
    }
  }
}

/** `a` and `b` are equally restrictive. */
export function equivalent(node: LatticeNode, a: unknown, b: unknown): boolean {
  return leq(node, a, b) && leq(node, b, a);
}

/** The most permissive value at least as restrictive as both (absent = top, the identity). */
export function meet(node: LatticeNode, a: unknown, b: unknown): unknown {
  if (a === undefined) return b;
  if (b === undefined) return a;
  switch (node.kind) {
    case 'level':
      return levelOrder(a) <= levelOrder(b) ? a : b;
    case 'levelFloor':
      return levelOrder(a) >= levelOrder(b) ? a : b;
    case 'allowList': {
      const other = asList(b);
      return canonicalList(
        node.values,
        asList(a).filter((v) => other.includes(v)),
      );
    }
    case 'denyList':
      return canonicalList(node.values, [...asList(a), ...asList(b)]);
    case 'numericMax':
      return Math.min(a as number, b as number);
    case 'numericMin':
      return Math.max(a as number, b as number);
    case 'grant':
      return a === true && b === true;
    case 'obligation':
      return a === true || b === true;
    case 'ordinal':
      return node.order.indexOf(a as string) >= node.order.indexOf(b as string) ? a : b;
    case 'map':
    case 'object': {
      const da = isDict(a) ? a : {};
      const db = isDict(b) ? b : {};
      const out: Dict = {};
      for (const k of new Set([...Object.keys(da), ...Object.keys(db)])) {
        const child = childNode(node, k);
        if (!child) continue;
        const m = meet(child, da[k], db[k]);
        if (m !== undefined) out[k] = m;
      }
      return out;
    }
  }
}

/** Meet of any number of values (the empty meet is top: `undefined`). */
export function meetAll(node: LatticeNode, values: readonly unknown[]): unknown {
  let acc: unknown;
  for (const v of values) acc = meet(node, acc, v);
  return acc;
}

/** One key where a child is more permissive than its parent's effective value. */
export interface LeafViolation {
  path: string[];
  node: LatticeNode;
  value: unknown;
  parentValue: unknown;
}

/**
 * Lists the meet combines by union (deny lists): what a child writes there is added to what it
 * inherits, so a child states only its additions and is checked merged with its parent.
 */
export function isAdditive(node: LatticeNode): boolean {
  return node.kind === 'denyList';
}

/**
 * The value a child's own `value` stands for once merged with what it inherits: for an additive
 * list, the union with the parent's (`blocked: [search_docs]` under `blocked: [wire_money]` blocks
 * both); for every other leaf, the value as written (a limit, an allow-list, a flag replaces the
 * inherited one, so it must already be within it).
 */
export function mergedWithParent(node: LatticeNode, value: unknown, parent: unknown): unknown {
  return isAdditive(node) ? meet(node, value, parent) : value;
}

/**
 * Every leaf the child sets whose value, merged with what it inherits (`mergedWithParent`), is not
 * ⊑ the parent's value at the same path (unset keys inherit and never violate; a key the parent
 * leaves unset compares against top and never violates). A child therefore never loosens its
 * parent, and never has to restate an inherited deny list.
 */
export function leafViolations(
  node: LatticeNode,
  child: unknown,
  parent: unknown,
  path: string[] = [],
): LeafViolation[] {
  if (child === undefined) return [];
  if (!isLeaf(node)) {
    if (!isDict(child)) return [];
    const out: LeafViolation[] = [];
    for (const [k, v] of Object.entries(child)) {
      const c = childNode(node, k);
      if (c) out.push(...leafViolations(c, v, isDict(parent) ? parent[k] : undefined, [...path, k]));
    }
    return out;
  }
  return leq(node, mergedWithParent(node, child, parent), parent)
    ? []
    : [{ path, node, value: child, parentValue: parent }];
}

const show = (v: unknown): string => (Array.isArray(v) ? `[${v.join(', ')}]` : `'${String(v)}'`);

/** A human sentence saying why `value` may not sit below `parentValue`. */
export function violationReason(
  node: LatticeNode,
  key: string,
  value: unknown,
  parentValue: unknown,
  parentLabel: string,
): string {
  const tail = `inherited from ${parentLabel}`;
  switch (node.kind) {
    case 'level':
      return `${key} ${show(value)} is above the classification limit ${show(parentValue)} ${tail}; a lower scope can only lower it`;
    case 'levelFloor':
      return `${key} ${show(value)} is below the classification ${show(parentValue)} ${tail}; a lower scope can only raise it`;
    case 'allowList': {
      const extra = asList(value).filter((v) => !asList(parentValue).includes(v));
      return `${key} allows ${show(extra)}, which the allow-list ${show(parentValue)} ${tail} does not allow`;
    }
    case 'numericMax':
      return `${key} ${String(value)} exceeds the maximum ${String(parentValue)} ${tail}`;
    case 'numericMin':
      return `${key} ${String(value)} is below the minimum ${String(parentValue)} ${tail}`;
    case 'grant':
      return `${key} grants what is disabled (false) ${tail}`;
    case 'obligation':
      return `${key} drops what is required (true) ${tail}`;
    case 'ordinal':
      return `${key} ${show(value)} is less restrictive than ${show(parentValue)} ${tail} (order: ${node.order.join(' < ')})`;
    default:
      return `${key} is less restrictive than the value ${tail}`;
  }
}
