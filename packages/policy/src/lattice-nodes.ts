/**
 * The node types of the restriction lattice and their builders: a domain's policy content is
 * described once as a tree of these nodes (see `domains.ts`); `lattice.ts` derives the order, the
 * meet and the violations from it.
 */
import type { ClassificationLevel } from '@agentgov/core';

/** A classification limit: a lower level is stricter (`max_classification`). */
export interface LevelNode {
  readonly kind: 'level';
}
/**
 * A classification floor: the level some data is at least treated as, so a higher level is
 * stricter (`classification_overrides.<source>`).
 */
export interface LevelFloorNode {
  readonly kind: 'levelFloor';
}
export interface AllowListNode<V extends string = string> {
  readonly kind: 'allowList';
  /** The closed set of items; free strings when absent. */
  readonly values?: readonly V[];
  /** One item may be written alone (`permissions: read` is `permissions: [read]`). */
  readonly single?: boolean;
}
export interface DenyListNode<V extends string = string> {
  readonly kind: 'denyList';
  readonly values?: readonly V[];
  readonly single?: boolean;
  /**
   * Free items are names the decision compares with lower-case names (`blocked` tools): each
   * must be one (`[a-z][a-z0-9_.-]*`), as a free map key must — an item that could never match
   * would block nothing, silently.
   */
  readonly names?: boolean;
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
/** A boolean that grants: `false` is stricter (`enabled`). */
export interface GrantNode {
  readonly kind: 'grant';
  /**
   * A grant no policy can give: only `false` is accepted, and this sentence is the error for
   * `true` (`cross_enterprise`: the spec always blocks cross-tenant exchange).
   */
  readonly never?: string;
}
/** A boolean that obliges: `true` is stricter (`log_all_actions`). */
export interface ObligationNode {
  readonly kind: 'obligation';
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
   * The map may be written as one value, which the content schema expands (so everything after
   * parsing sees the map); see `MapShorthand`.
   */
  readonly shorthand?: MapShorthand;
  /** The pattern of free keys (a RegExp source); default: lower-case names `[a-z][a-z0-9_.-]*`. */
  readonly keyPattern?: string;
  /** Free maps: well-known keys, offered by the JSON Schema to editors (others are still accepted). */
  readonly known?: readonly string[];
}

/**
 * How one value stands for a whole map:
 * - `each`: one child value for every key of a closed map (`max_rounds: 2` means
 *   `max_rounds: {information_query: 2, commitment_request: 2, meeting_scheduling: 2}`);
 * - `key`: the value of one key (`retention: 365` means `retention: {default: 365}`);
 * - `threshold`: a map over classification levels to a two-valued ordinal: `true` is `allow` for
 *   every level, `false` is `deny` for every level, a level is `allow` up to it and `deny` above
 *   (`cross_org: internal` means `cross_org: {public: allow, internal: allow, confidential: deny,
 *   restricted: deny}`).
 */
export type MapShorthand =
  | { readonly kind: 'each' }
  | { readonly kind: 'key'; readonly key: string }
  | { readonly kind: 'threshold'; readonly allow: string; readonly deny: string };

export interface ObjectNode<F extends Record<string, LatticeNode> = Record<string, LatticeNode>> {
  readonly kind: 'object';
  readonly fields: F;
  /**
   * Other spellings of a field, accepted on input and renamed to the canonical key by the content
   * schema (`tools` → `actions`); a document that sets both spellings is refused.
   */
  readonly aliases?: Readonly<Record<string, keyof F & string>>;
  /** One sentence per field, for the JSON Schema (editor hovers) and the README. */
  readonly docs?: Readonly<Partial<Record<keyof F & string, string>>>;
}

export type LatticeNode =
  | LevelNode
  | LevelFloorNode
  | AllowListNode
  | DenyListNode
  | NumericMaxNode
  | NumericMinNode
  | GrantNode
  | ObligationNode
  | OrdinalNode
  | MapNode
  | ObjectNode;

/** The content type a node describes (every key optional: absent = inherit). */
export type ContentOf<N> = N extends LevelNode | LevelFloorNode
  ? ClassificationLevel
  : N extends AllowListNode<infer V>
    ? V[]
    : N extends DenyListNode<infer V>
      ? V[]
      : N extends NumericMaxNode | NumericMinNode
        ? number
        : N extends GrantNode | ObligationNode
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
export const levelFloor = (): LevelFloorNode => ({ kind: 'levelFloor' });
export const allowList = <const V extends string = string>(
  values?: readonly V[],
  options: { single?: boolean } = {},
): AllowListNode<V> => ({
  kind: 'allowList',
  ...(values ? { values } : {}),
  ...(options.single ? { single: true } : {}),
});
export const denyList = <const V extends string = string>(
  values?: readonly V[],
  options: { single?: boolean; names?: boolean } = {},
): DenyListNode<V> => ({
  kind: 'denyList',
  ...(values ? { values } : {}),
  ...(options.single ? { single: true } : {}),
  ...(options.names ? { names: true } : {}),
});
export const numericMax = (min: number, max: number): NumericMaxNode => ({ kind: 'numericMax', min, max });
export const numericMin = (floor: number, max: number): NumericMinNode => ({
  kind: 'numericMin',
  floor,
  max,
});
export const grant = (options: { never?: string } = {}): GrantNode =>
  options.never ? { kind: 'grant', never: options.never } : { kind: 'grant' };
export const obligation = (): ObligationNode => ({ kind: 'obligation' });
export const ordinal = <const V extends string>(order: readonly V[]): OrdinalNode<V> => ({
  kind: 'ordinal',
  order,
});
export const mapOf = <const K extends string, C extends LatticeNode>(
  keyLabel: string,
  keys: readonly K[] | undefined,
  child: C,
  options: { shorthand?: MapShorthand; keyPattern?: string; known?: readonly string[] } = {},
): MapNode<K, C> => ({
  kind: 'map',
  keyLabel,
  ...(keys ? { keys } : {}),
  child,
  ...(options.shorthand && (keys || options.shorthand.kind === 'key')
    ? { shorthand: options.shorthand }
    : {}),
  ...(!keys && options.keyPattern ? { keyPattern: options.keyPattern } : {}),
  ...(!keys && options.known ? { known: options.known } : {}),
});
export const object = <F extends Record<string, LatticeNode>>(
  fields: F,
  options: {
    aliases?: Readonly<Record<string, keyof F & string>>;
    docs?: Readonly<Partial<Record<keyof F & string, string>>>;
  } = {},
): ObjectNode<F> => ({
  kind: 'object',
  fields,
  ...(options.aliases ? { aliases: options.aliases } : {}),
  ...(options.docs ? { docs: options.docs } : {}),
});
