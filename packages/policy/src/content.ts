/**
 * Policy content: YAML text → a validated, normalized content value of one domain. The zod schema
 * of each domain is derived from its lattice description; unknown keys are rejected, naming the
 * key and the domain.
 */
import {
  CLASSIFICATION_LEVELS,
  ClassificationLevelSchema,
  type FieldIssue,
  MAX_POLICY_CONTENT_LENGTH,
  type PolicyDomain,
  ValidationError,
} from '@agentgov/core';
import { err, ok, type Result } from 'neverthrow';
import { parseDocument } from 'yaml';
import { z } from 'zod';
import { DOMAIN_LATTICES, type PolicyContentByDomain } from './domains';
import { childNode, type LatticeNode, type MapNode, type MapShorthand, normalize } from './lattice';

/** Longest string item (provider, tool, source names…) inside a policy's content. */
export const MAX_CONTENT_STRING = 255;
/** Most items of one list or map inside a policy's content. */
export const MAX_CONTENT_ITEMS = 1000;

const Item = z.string().min(1).max(MAX_CONTENT_STRING);
/** Free map keys unless a node says otherwise: lower-case names. */
const DEFAULT_KEY_PATTERN = '^[a-z][a-z0-9_.-]*$';

function freeKey(pattern: string | undefined): z.ZodString {
  const source = pattern ?? DEFAULT_KEY_PATTERN;
  return z
    .string()
    .min(1)
    .max(MAX_CONTENT_STRING)
    .regex(
      new RegExp(source),
      pattern === undefined ? 'must be a lower-case name (a-z, 0-9, _ . -)' : `must match ${source}`,
    );
}

const maxEntries = (m: object): boolean => Object.keys(m).length <= MAX_CONTENT_ITEMS;

/** The one value a map shorthand accepts, before it is expanded and checked key by key. */
function shorthandInput(node: MapNode, shorthand: MapShorthand): z.ZodType {
  if (shorthand.kind === 'threshold') {
    const expected = `expected true, false, a classification level (${CLASSIFICATION_LEVELS.join(', ')}) or a map from level to ${shorthand.allow}|${shorthand.deny}`;
    return z.union([z.boolean(), z.enum(CLASSIFICATION_LEVELS, { error: expected })]);
  }
  switch (node.child.kind) {
    case 'numericMax':
    case 'numericMin':
      return z.number();
    case 'grant':
    case 'obligation':
      return z.boolean();
    case 'map':
    case 'object':
      return z.never();
    default:
      return z.string();
  }
}

/** One value → the map it stands for (see `MapShorthand`). */
function expandShorthand(node: MapNode, value: unknown): Record<string, unknown> {
  const shorthand = node.shorthand;
  const keys = node.keys ?? [];
  switch (shorthand?.kind) {
    case 'each':
      return Object.fromEntries(keys.map((k) => [k, value]));
    case 'key':
      return { [shorthand.key]: value };
    case 'threshold': {
      if (typeof value === 'boolean') {
        return Object.fromEntries(keys.map((k) => [k, value ? shorthand.allow : shorthand.deny]));
      }
      const limit = keys.indexOf(value as string);
      return Object.fromEntries(keys.map((k, i) => [k, i <= limit ? shorthand.allow : shorthand.deny]));
    }
    default:
      return {};
  }
}

function mapSchema(node: MapNode): z.ZodType {
  const child = schemaOf(node.child);
  if (node.keys) return z.strictObject(Object.fromEntries(node.keys.map((k) => [k, child.optional()])));
  const key = freeKey(node.keyPattern);
  if (!node.known) {
    return z.record(key, child).refine(maxEntries, `at most ${MAX_CONTENT_ITEMS} entries`);
  }
  // Well-known keys are spelled out (editors complete them); any other key of the pattern is accepted.
  return z
    .object(Object.fromEntries(node.known.map((k) => [k, child.optional()])))
    .catchall(child)
    .meta({
      propertyNames: { pattern: node.keyPattern ?? DEFAULT_KEY_PATTERN, maxLength: MAX_CONTENT_STRING },
      maxProperties: MAX_CONTENT_ITEMS,
    })
    .superRefine((m, ctx) => {
      for (const k of Object.keys(m)) {
        const checked = key.safeParse(k);
        if (!checked.success) {
          ctx.addIssue({
            code: 'custom',
            path: [k],
            message: `${node.keyLabel} name ${checked.error.issues[0]?.message ?? 'is invalid'}`,
          });
        }
      }
      if (!maxEntries(m)) ctx.addIssue({ code: 'custom', message: `at most ${MAX_CONTENT_ITEMS} entries` });
    });
}

const described = (schema: z.ZodType, description: string | undefined): z.ZodType =>
  description === undefined ? schema : schema.meta({ description });

/** The zod schema of a lattice node (every object key optional; unknown keys rejected). */
export function schemaOf(node: LatticeNode): z.ZodType {
  switch (node.kind) {
    case 'level':
    case 'levelFloor':
      return ClassificationLevelSchema;
    case 'allowList':
    case 'denyList': {
      const item = node.values
        ? z.enum(node.values as [string, ...string[]])
        : node.kind === 'denyList' && node.names
          ? freeKey(undefined)
          : Item;
      const list = z.array(item).max(MAX_CONTENT_ITEMS);
      return node.single ? z.union([item.transform((v) => [v]), list]) : list;
    }
    case 'numericMax':
      return z.number().int().min(node.min).max(node.max);
    case 'numericMin':
      return z.number().int().min(node.floor).max(node.max);
    case 'grant': {
      const never = node.never;
      if (never === undefined) return z.boolean();
      return z.literal(false, {
        error: (issue) => (issue.input === true ? never : 'expected false (or leave the key out)'),
      });
    }
    case 'obligation':
      return z.boolean();
    case 'ordinal':
      return z.enum(node.order as [string, ...string[]]);
    case 'map': {
      const map = mapSchema(node);
      const shorthand = node.shorthand;
      if (!shorthand) return map;
      // One value for the whole map, expanded before the map's rules (so errors name the key).
      return z.union([
        shorthandInput(node, shorthand)
          .transform((v) => expandShorthand(node, v))
          .pipe(map as z.ZodType<unknown, Record<string, unknown>>),
        map,
      ]);
    }
    case 'object': {
      const shape: Record<string, z.ZodType> = {};
      for (const [k, n] of Object.entries(node.fields)) {
        shape[k] = described(schemaOf(n), node.docs?.[k]).optional();
      }
      const aliases = Object.entries(node.aliases ?? {});
      for (const [alias, target] of aliases) {
        const field = node.fields[target];
        if (!field) continue;
        shape[alias] = schemaOf(field)
          .meta({ deprecated: true, description: `Another spelling of \`${target}\` (write \`${target}\`).` })
          .optional();
      }
      const schema = z.strictObject(shape);
      if (aliases.length === 0) return schema;
      return schema
        .superRefine((value, ctx) => {
          for (const [alias, target] of aliases) {
            if (value[alias] !== undefined && value[target] !== undefined) {
              ctx.addIssue({
                code: 'custom',
                path: [alias],
                message: `'${alias}' is another spelling of '${target}'; set only one of them`,
              });
            }
          }
        })
        .transform((value) => {
          const out: Record<string, unknown> = { ...value };
          for (const [alias, target] of aliases) {
            if (out[alias] !== undefined) out[target] = out[alias];
            delete out[alias];
          }
          return out;
        });
    }
  }
}

/** One zod schema per domain, derived from `DOMAIN_LATTICES`. */
export const DOMAIN_SCHEMAS = Object.fromEntries(
  Object.entries(DOMAIN_LATTICES).map(([domain, node]) => [domain, schemaOf(node)]),
) as Record<PolicyDomain, z.ZodType>;

function knownKeys(node: LatticeNode | undefined): string {
  if (!node) return '';
  if (node.kind === 'object') {
    const aliases = Object.entries(node.aliases ?? {}).map(([a, t]) => `${a} (= ${t})`);
    return [...Object.keys(node.fields), ...aliases].join(', ');
  }
  if (node.kind === 'map' && node.keys) return node.keys.join(', ');
  return '';
}

/** The node at a path of the *written* content (aliases resolved), for messages. */
function writtenNodeAt(root: LatticeNode, path: readonly string[]): LatticeNode | undefined {
  let cur: LatticeNode | undefined = root;
  for (const key of path) {
    if (!cur) return undefined;
    const alias: string | undefined = cur.kind === 'object' ? cur.aliases?.[key] : undefined;
    cur = childNode(cur, alias ?? key);
  }
  return cur;
}

type Issue = z.core.$ZodIssue;

const rootTypeMismatch = (branch: readonly Issue[]): boolean =>
  branch.every((i) => i.path.length === 0 && i.code === 'invalid_type');

/**
 * zod's issues, with unions resolved: of the alternatives of a union (a value or its shorthand),
 * the one whose shape the input has explains the failure; when none has, the message lists what
 * was expected.
 */
function flatIssues(issues: readonly Issue[], base: readonly PropertyKey[] = []): Issue[] {
  const out: Issue[] = [];
  for (const issue of issues) {
    const path = [...base, ...issue.path];
    if (issue.code !== 'invalid_union' || issue.errors.length === 0) {
      out.push({ ...issue, path } as Issue);
      continue;
    }
    // The alternative that got furthest into the input (deepest issue path), else one whose type matched.
    const depth = (b: readonly Issue[]): number => Math.max(0, ...b.map((i) => i.path.length));
    const deepest = issue.errors.reduce((best, b) => (depth(b) > depth(best) ? b : best));
    const branch = depth(deepest) > 0 ? deepest : issue.errors.find((b) => !rootTypeMismatch(b));
    if (branch) {
      out.push(...flatIssues(branch, path));
      continue;
    }
    const expected = [
      ...new Set(issue.errors.flat().map((i) => (i.code === 'invalid_type' ? i.expected : 'another value'))),
    ];
    out.push({ ...issue, path, message: `Invalid input: expected ${expected.join(' or ')}` } as Issue);
  }
  return out;
}

function issuesOf(domain: PolicyDomain, error: z.ZodError, prefix: string): FieldIssue[] {
  const root = DOMAIN_LATTICES[domain];
  const out: FieldIssue[] = [];
  for (const issue of flatIssues(error.issues)) {
    const path = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      const node = writtenNodeAt(root, path);
      const where = path.length ? ` under '${path.join('.')}'` : '';
      const label = node?.kind === 'map' ? `${node.keyLabel} ` : 'key ';
      for (const key of issue.keys) {
        out.push({
          field: [prefix, ...path, key].filter(Boolean).join('.'),
          message: `unknown ${label}'${key}' in ${domain} policy${where}; known: ${knownKeys(node)}`,
        });
      }
      continue;
    }
    const field = [prefix, ...path].filter(Boolean).join('.') || prefix || '(content)';
    let message = issue.message;
    if (issue.code === 'invalid_key') {
      const node = writtenNodeAt(root, path.slice(0, -1));
      const label = node?.kind === 'map' ? node.keyLabel : 'key';
      message = `invalid ${label} name '${path.at(-1) ?? ''}': ${issue.issues[0]?.message ?? issue.message}`;
    }
    out.push({ field, message: `${message} (${domain} policy)` });
  }
  return out;
}

/**
 * Parses YAML text (or an already-parsed value) as the content of `domain`. Lists are sorted and
 * de-duplicated. Failures are `ValidationError`s naming the field (`content.<path>`).
 */
export function parsePolicyContent<D extends PolicyDomain>(
  domain: D,
  content: unknown,
  prefix = 'content',
): Result<PolicyContentByDomain[D], ValidationError> {
  let value: unknown = content;
  if (typeof content === 'string') {
    if (content.length > MAX_POLICY_CONTENT_LENGTH) {
      return err(ValidationError.invalid(prefix, `content exceeds ${MAX_POLICY_CONTENT_LENGTH} characters`));
    }
    const parsed = parseYaml(content, prefix);
    if (parsed.isErr()) return err(parsed.error);
    value = parsed.value ?? {};
  }
  const node = DOMAIN_LATTICES[domain];
  if (!node) return err(ValidationError.invalid('domain', `unknown policy domain '${String(domain)}'`));
  const result = DOMAIN_SCHEMAS[domain].safeParse(value);
  if (!result.success) {
    const issues = issuesOf(domain, result.error, prefix);
    const first = issues[0];
    return err(
      new ValidationError('invalid_type', issues, first ? `${first.field}: ${first.message}` : undefined),
    );
  }
  return ok(normalize(node, result.data) as PolicyContentByDomain[D]);
}

/**
 * Parses YAML text safely: syntax errors, duplicate keys and alias bombs become a ValidationError
 * naming the line; custom tags are not resolved.
 */
export function parseYaml(text: string, field = 'content'): Result<unknown, ValidationError> {
  let doc: ReturnType<typeof parseDocument>;
  try {
    doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true, strict: true });
  } catch (error) {
    return err(ValidationError.invalid(field, `malformed YAML: ${(error as Error).message}`));
  }
  const first = doc.errors[0];
  if (first) {
    return err(
      ValidationError.invalid(
        field,
        `malformed YAML: ${(first.message.split('\n')[0] ?? '').replace(/:$/, '')}`,
      ),
    );
  }
  try {
    return ok(doc.toJS({ maxAliasCount: 100 }));
  } catch (error) {
    return err(ValidationError.invalid(field, `malformed YAML: ${(error as Error).message}`));
  }
}

/** Serializes content back to YAML text (what the PolicyStore keeps). */
export { stringify as toYaml } from 'yaml';
