/**
 * Policy content: YAML text → a validated, normalized content value of one domain. The zod schema
 * of each domain is derived from its lattice description; unknown keys are rejected, naming the
 * key and the domain.
 */
import {
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
import { type LatticeNode, nodeAt, normalize } from './lattice';

/** Longest string item (provider, tool, source names…) inside a policy's content. */
export const MAX_CONTENT_STRING = 255;
/** Most items of one list or map inside a policy's content. */
export const MAX_CONTENT_ITEMS = 1000;

const Item = z.string().min(1).max(MAX_CONTENT_STRING);
const FreeKey = z
  .string()
  .max(MAX_CONTENT_STRING)
  .regex(/^[a-z][a-z0-9_.-]*$/, 'must be a lower-case name (a-z, 0-9, _ . -)');

/** The zod schema of a lattice node (every object key optional; unknown keys rejected). */
export function schemaOf(node: LatticeNode): z.ZodType {
  switch (node.kind) {
    case 'level':
      return ClassificationLevelSchema;
    case 'allowList':
    case 'denyList':
      return z
        .array(node.values ? z.enum(node.values as [string, ...string[]]) : Item)
        .max(MAX_CONTENT_ITEMS);
    case 'numericMax':
      return z.number().int().min(node.min).max(node.max);
    case 'numericMin':
      return z.number().int().min(node.floor).max(node.max);
    case 'grant':
      return z.boolean();
    case 'ordinal':
      return z.enum(node.order as [string, ...string[]]);
    case 'map': {
      const child = schemaOf(node.child);
      if (node.keys) {
        const keys = node.keys;
        const map = z.strictObject(Object.fromEntries(keys.map((k) => [k, child.optional()])));
        if (!node.shorthand) return map;
        // One value for every key, expanded before validation (so errors name the key's rule).
        return z.preprocess(
          (v) =>
            v !== null && typeof v !== 'object' && v !== undefined
              ? Object.fromEntries(keys.map((k) => [k, v]))
              : v,
          map,
        );
      }
      return z
        .record(FreeKey, child)
        .refine((m) => Object.keys(m).length <= MAX_CONTENT_ITEMS, `at most ${MAX_CONTENT_ITEMS} entries`);
    }
    case 'object':
      return z.strictObject(
        Object.fromEntries(Object.entries(node.fields).map(([k, n]) => [k, schemaOf(n).optional()])),
      );
  }
}

/** One zod schema per domain, derived from `DOMAIN_LATTICES`. */
export const DOMAIN_SCHEMAS = Object.fromEntries(
  Object.entries(DOMAIN_LATTICES).map(([domain, node]) => [domain, schemaOf(node)]),
) as Record<PolicyDomain, z.ZodType>;

function knownKeys(node: LatticeNode | undefined): string {
  if (!node) return '';
  if (node.kind === 'object') return Object.keys(node.fields).join(', ');
  if (node.kind === 'map' && node.keys) return node.keys.join(', ');
  return '';
}

function issuesOf(domain: PolicyDomain, error: z.ZodError, prefix: string): FieldIssue[] {
  const root = DOMAIN_LATTICES[domain];
  const out: FieldIssue[] = [];
  for (const issue of error.issues) {
    const path = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      const node = nodeAt(root, path);
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
    out.push({ field, message: `${issue.message} (${domain} policy)` });
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
