/**
 * The node types of the restriction lattice and their builders: a domain's policy content is
 * described once as a tree of these nodes (see `domains.ts`); `lattice.ts` derives the order, the
 * meet and the violations from it.
 */
import type { ClassificationLevel } from '@agentgov/core';

export interface LevelNode {
  readonly kind: 'level';
}
export interface AllowListNode<V extends string = string> {
  readonly kind: 'allowList';
  /** The closed set of items; free strings when absent. */
  readonly values?: readonly V[];
}
export interface DenyListNode<V extends string = string> {
  readonly kind: 'denyList';
  readonly values?: readonly V[];
}
export interface NumericMaxNode {
  readonly kind: 'numericMax';
  readonly min: number;
  readonly max: number;
}
export interface NumericMinNode {
  readonly kind: 'numericMin';
  /** The floor: the smallest value a policy may set (the top of the node). */
  readonly floor: number;
  readonly max: number;
}
export interface GrantNode {
  readonly kind: 'grant';
}
export interface OrdinalNode<V extends string = string> {
  readonly kind: 'ordinal';
  /** From the most permissive to the most restrictive. */
  readonly order: readonly V[];
}
export interface MapNode<K extends string = string, C extends LatticeNode = LatticeNode> {
  readonly kind: 'map';
  /** The closed set of keys (exchange types, connector types…); free snake_case names when absent. */
  readonly keys?: readonly K[];
  /** What a key names, for messages ("exchange type", "tool"). */
  readonly keyLabel: string;
  readonly child: C;
  /**
   * A closed map may be written as one value that applies to every key (`max_rounds: 2` means
   * `max_rounds: {information_query: 2, commitment_request: 2, meeting_scheduling: 2}`); the
   * content schema expands it, so everything after parsing sees the map.
   */
  readonly shorthand?: boolean;
}
export interface ObjectNode<F extends Record<string, LatticeNode> = Record<string, LatticeNode>> {
  readonly kind: 'object';
  readonly fields: F;
}

export type LatticeNode =
  | LevelNode
  | AllowListNode
  | DenyListNode
  | NumericMaxNode
  | NumericMinNode
  | GrantNode
  | OrdinalNode
  | MapNode
  | ObjectNode;

/** The content type a node describes (every key optional: absent = inherit). */
export type ContentOf<N> = N extends LevelNode
  ? ClassificationLevel
  : N extends AllowListNode<infer V>
    ? V[]
    : N extends DenyListNode<infer V>
      ? V[]
      : N extends NumericMaxNode | NumericMinNode
        ? number
        : N extends GrantNode
          ? boolean
          : N extends OrdinalNode<infer V>
            ? V
            : N extends MapNode<infer K, infer C>
              ? { [P in K]?: ContentOf<C> }
              : N extends ObjectNode<infer F>
                ? { [P in keyof F]?: ContentOf<F[P]> }
                : never;

// ---------------------------------------------------------------------------------------------
// Builders: one line per key in a domain description.

export const level = (): LevelNode => ({ kind: 'level' });
export const allowList = <const V extends string = string>(values?: readonly V[]): AllowListNode<V> =>
  values ? { kind: 'allowList', values } : { kind: 'allowList' };
export const denyList = <const V extends string = string>(values?: readonly V[]): DenyListNode<V> =>
  values ? { kind: 'denyList', values } : { kind: 'denyList' };
export const numericMax = (min: number, max: number): NumericMaxNode => ({ kind: 'numericMax', min, max });
export const numericMin = (floor: number, max: number): NumericMinNode => ({
  kind: 'numericMin',
  floor,
  max,
});
export const grant = (): GrantNode => ({ kind: 'grant' });
export const ordinal = <const V extends string>(order: readonly V[]): OrdinalNode<V> => ({
  kind: 'ordinal',
  order,
});
export const mapOf = <const K extends string, C extends LatticeNode>(
  keyLabel: string,
  keys: readonly K[] | undefined,
  child: C,
  options: { shorthand?: boolean } = {},
): MapNode<K, C> => ({
  kind: 'map',
  keyLabel,
  ...(keys ? { keys } : {}),
  child,
  ...(keys && options.shorthand ? { shorthand: true } : {}),
});
export const object = <F extends Record<string, LatticeNode>>(fields: F): ObjectNode<F> => ({
  kind: 'object',
  fields,
});
