/**
 * The deployment configuration objects (the spec's "Versioning": they carry an apiVersion ending
 * in `/v1`): one envelope for every kind —
 *
 * ```yaml
 * apiVersion: agentgov.dev/v1
 * kind: GovernanceServer      # or McpProxy
 * metadata: { name: prod }    # optional
 * spec: { … }                 # the kind's settings, strict
 * ```
 *
 * Parsing never throws: every problem is a {@link DeploymentIssue} naming the key path, and an
 * unknown key names the nearest known key (`spec.prot: unknown key; did you mean spec.port?`).
 * The YAML text itself is read by the caller (the values arrive here already parsed).
 */
import { z } from 'zod';
import { nearestName } from '../names';
import { err, ok, type Result } from '../result';

export const DEPLOYMENT_API_VERSION = 'agentgov.dev/v1';

/** One problem of a configuration file: where (`spec.database.url`), what, and a likely fix. */
export interface DeploymentIssue {
  /** Dotted key path (`spec.upstreams.0.namespace`); empty for the document itself. */
  path: string;
  message: string;
  /** The nearest known key path (an unknown key) or value (apiVersion, kind). */
  suggestion?: string;
}

export interface DeploymentDocument<K extends string = string, S = unknown> {
  apiVersion: typeof DEPLOYMENT_API_VERSION;
  kind: K;
  metadata?: { name?: string | undefined } | undefined;
  spec: S;
}

const MetadataSchema = z
  .strictObject({
    name: z.string().min(1).max(253).optional().meta({ description: 'A name for this deployment.' }),
  })
  .meta({ description: 'Optional: what this configuration is called.' });

/** The whole document of one kind: the envelope around `spec` (strict at every level). */
export function deploymentSchema<K extends string, S extends z.ZodType>(kind: K, spec: S) {
  return z.strictObject({
    apiVersion: z.literal(DEPLOYMENT_API_VERSION).meta({ description: 'Always agentgov.dev/v1.' }),
    kind: z.literal(kind),
    metadata: MetadataSchema.optional(),
    spec,
  });
}

/** The issue's message with its suggestion: `unknown key; did you mean spec.port?`. */
export function deploymentIssueMessage(issue: DeploymentIssue): string {
  return issue.suggestion === undefined
    ? issue.message
    : `${issue.message}; did you mean ${issue.suggestion}?`;
}

/** The issue as one line: `spec.prot: unknown key; did you mean spec.port?`. */
export function formatDeploymentIssue(issue: DeploymentIssue): string {
  return `${issue.path || '(document)'}: ${deploymentIssueMessage(issue)}`;
}

/** Whether a parsed document is in the envelope form (it names an apiVersion or a kind). */
export function isDeploymentEnvelope(value: unknown): boolean {
  return isPlainObject(value) && ('apiVersion' in value || 'kind' in value);
}

/**
 * Checks a parsed document against the kinds it may be: apiVersion, kind, then the kind's
 * envelope and spec. Never throws.
 */
export function parseDeployment<Kinds extends Record<string, z.ZodType>>(
  value: unknown,
  kinds: Kinds,
): Result<DeploymentDocument<keyof Kinds & string, z.output<Kinds[keyof Kinds]>>, DeploymentIssue[]> {
  const known = Object.keys(kinds);
  if (!isPlainObject(value)) {
    return err([
      { path: '', message: `expected a mapping with apiVersion, kind and spec (got ${describe(value)})` },
    ]);
  }
  const issues: DeploymentIssue[] = [];
  const { apiVersion, kind } = value;
  if (apiVersion !== DEPLOYMENT_API_VERSION) {
    issues.push({
      path: 'apiVersion',
      message:
        apiVersion === undefined
          ? `missing; expected ${DEPLOYMENT_API_VERSION}`
          : `expected ${DEPLOYMENT_API_VERSION} (got ${describe(apiVersion)})`,
    });
  }
  // Own kinds only: `kind: toString` or `__proto__` is an unknown kind, not Object.prototype's.
  const spec = typeof kind === 'string' && Object.hasOwn(kinds, kind) ? kinds[kind] : undefined;
  if (spec === undefined) {
    const near = typeof kind === 'string' ? nearestName(kind, known) : undefined;
    issues.push({
      path: 'kind',
      message: `${kind === undefined ? 'missing' : `unknown kind ${describe(kind)}`}; expected ${known.join(' or ')}`,
      ...(near ? { suggestion: near } : {}),
    });
  }
  if (spec === undefined || issues.length > 0) return err(issues);
  const schema = deploymentSchema(kind as string, spec);
  const parsed = schema.safeParse(value);
  if (!parsed.success) return err(zodIssues(parsed.error, schema, value));
  return ok(parsed.data as DeploymentDocument<keyof Kinds & string, z.output<Kinds[keyof Kinds]>>);
}

/**
 * zod's issues (of parsing `input` with `schema`) as DeploymentIssues: one per unknown key, with
 * the nearest key the schema knows at that place; the others with their path and message — except
 * a required key's absence when an unknown key was suggested for it (one slip, one problem).
 */
export function zodIssues(error: z.ZodError, schema: z.ZodType, input: unknown): DeploymentIssue[] {
  const out: (DeploymentIssue & { missing?: boolean })[] = [];
  for (const issue of error.issues) {
    const at = issue.path;
    if (issue.code === 'unrecognized_keys') {
      const known = keysAt(schema, at);
      for (const key of issue.keys) {
        const near = nearestName(key, known);
        out.push({
          path: dotted([...at, key]),
          message: 'unknown key',
          ...(near ? { suggestion: dotted([...at, near]) } : {}),
        });
      }
    } else out.push({ path: dotted(at), message: issue.message, missing: valueAt(input, at) === undefined });
  }
  // A misspelt required key is one problem, not two: its "missing" issue goes with the suggestion.
  const suggested = new Set(out.map((i) => i.suggestion));
  return out.filter((i) => !(i.missing && suggested.has(i.path))).map(({ missing: _, ...issue }) => issue);
}

const dotted = (path: PropertyKey[]): string => path.map(String).join('.');

// --- walking a zod schema to the object at a path (for the keys it knows) ---------------------

interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
  getter?: () => z.ZodType;
}
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** The schemas a value at this node may be checked against: wrappers removed, unions spread. */
function candidates(schema: z.ZodType, depth = 0): z.ZodType[] {
  if (depth > 32) return [];
  const def = defOf(schema);
  const inner = def.innerType ?? def.in ?? (def.type === 'lazy' ? def.getter?.() : undefined);
  if (inner) return candidates(inner, depth + 1);
  if (def.type === 'union' && def.options) return def.options.flatMap((o) => candidates(o, depth + 1));
  return [schema];
}

/** The keys the schema knows for the object at `path` (every union option's, merged). */
function keysAt(schema: z.ZodType, path: PropertyKey[]): string[] {
  let nodes = candidates(schema);
  for (const segment of path) {
    nodes = nodes.flatMap((node) => {
      const def = defOf(node);
      const next =
        def.type === 'object'
          ? def.shape && Object.hasOwn(def.shape, segment)
            ? def.shape[String(segment)]
            : undefined
          : def.type === 'array'
            ? def.element
            : def.type === 'record'
              ? def.valueType
              : undefined;
      return next ? candidates(next) : [];
    });
  }
  return [...new Set(nodes.flatMap((n) => Object.keys(defOf(n).shape ?? {})))];
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let at = value;
  for (const key of path) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return 'empty';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return JSON.stringify(value)?.slice(0, 80) ?? String(value);
}
