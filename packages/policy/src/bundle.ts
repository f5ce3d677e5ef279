/**
 * Policy-as-code on disk: a directory with `directory.yaml` (the org tree) and `policies/**\/*.yaml`
 * (one policy per file). Loading, whole-tree validation and a ready built-in engine over it —
 * what `agentgov policy validate|decide` and the demo use.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import {
  type FieldIssue,
  type GovernanceError,
  InMemoryOrgDirectory,
  InMemoryPolicyStore,
  MAX_POLICY_CONTENT_LENGTH,
  type OrgDirectory,
  OrgDirectoryDefinitionSchema,
  type Policy,
  type PolicyDomain,
  PolicyDomainSchema,
  type Scope,
  ScopeSchema,
  SemVer,
  ValidationError,
  validationErrorFromZod,
} from '@agentgov/core';
import { err, ok, type Result } from 'neverthrow';
import { stringify } from 'yaml';
import { z } from 'zod';
import { parsePolicyContent, parseYaml } from './content';
import type { PolicyContentByDomain } from './domains';
import { BuiltinDecisionEngine } from './engines';
import type { ChainLevel } from './hierarchy';
import { violationsAgainst } from './hierarchy';
import { checkTarget } from './rbac';
import { EffectivePolicyResolver } from './resolver';
import { type PolicyWarning, policyContentWarnings } from './warnings';

/** Largest file read from a policy directory. */
export const MAX_POLICY_FILE_BYTES = 1024 * 1024;

export type OrgDirectoryDefinitionParsed = z.output<typeof OrgDirectoryDefinitionSchema>;

/** Parses `directory.yaml` text into a definition and an InMemoryOrgDirectory. */
export function loadOrgDirectoryYaml(
  text: string,
): Result<{ definition: OrgDirectoryDefinitionParsed; directory: InMemoryOrgDirectory }, ValidationError> {
  const raw = parseYaml(text, 'directory');
  if (raw.isErr()) return err(raw.error);
  const parsed = OrgDirectoryDefinitionSchema.safeParse(raw.value);
  if (!parsed.success) return err(validationErrorFromZod(parsed.error, raw.value, 'directory'));
  return ok({ definition: parsed.data, directory: InMemoryOrgDirectory.fromDefinitions(parsed.data) });
}

/** One policy file: the Policy fields, `content` as a mapping or a string of YAML. */
export const PolicyFileSchema = z.strictObject({
  scope: ScopeSchema,
  scopeId: z.string().min(1).max(255),
  domain: PolicyDomainSchema,
  name: z.string().min(1).max(255),
  version: SemVer,
  content: z.union([
    z.string().max(MAX_POLICY_CONTENT_LENGTH),
    z.record(z.string(), z.unknown()),
    z.null().transform(() => ({})),
  ]),
  status: z.enum(['active', 'draft', 'deprecated']).default('active'),
  changeReason: z.string().min(1).max(4096).optional(),
});

export interface PolicyDocument<D extends PolicyDomain = PolicyDomain> {
  /** Path relative to the bundle directory, with `/` separators. */
  file: string;
  scope: Scope;
  scopeId: string;
  domain: D;
  name: string;
  version: string;
  status: 'active' | 'draft' | 'deprecated';
  changeReason?: string | undefined;
  content: PolicyContentByDomain[D];
}

export interface BundleFileError {
  file: string;
  /** `invalid`: the file is not a valid policy (exit 2); `reference`: it targets an unknown node (exit 1). */
  kind: 'invalid' | 'reference';
  message: string;
  issues?: FieldIssue[];
}

export interface PolicyBundle {
  dir: string;
  tenantId: string;
  directory: OrgDirectory;
  definition: OrgDirectoryDefinitionParsed;
  policies: PolicyDocument[];
  errors: BundleFileError[];
}

/** Parses one policy file's text. */
export function parsePolicyFile(text: string, file: string): Result<PolicyDocument, BundleFileError> {
  const invalid = (e: ValidationError): BundleFileError => ({
    file,
    kind: 'invalid',
    message: e.detail[0] ? `${e.detail[0].field}: ${e.detail[0].message}` : e.message,
    issues: e.detail,
  });
  const raw = parseYaml(text, 'file');
  if (raw.isErr()) return err(invalid(raw.error));
  const parsed = PolicyFileSchema.safeParse(raw.value);
  if (!parsed.success)
    return err(invalid(quoteHint(validationErrorFromZod(parsed.error, raw.value), raw.value, text)));
  const f = parsed.data;
  const content = parsePolicyContent(f.domain, f.content);
  if (content.isErr()) return err(invalid(content.error));
  return ok({
    file,
    scope: f.scope,
    scopeId: f.scopeId,
    domain: f.domain,
    name: f.name,
    version: f.version,
    status: f.status,
    changeReason: f.changeReason,
    content: content.value,
  });
}

/**
 * `version: 1.0` is the number 1 to YAML (and `version: 2` the number 2): the schema's "expected
 * string" says nothing useful, so the message says to quote it, with what was written.
 */
function quoteHint(error: ValidationError, raw: unknown, text: string): ValidationError {
  const version = (raw as { version?: unknown } | null)?.version;
  if (typeof version !== 'number') return error;
  const written = /^version:[ \t]*([^#\r\n]*?)[ \t]*(?:#.*)?$/m.exec(text)?.[1] || String(version);
  const parts = written.split('.');
  const semver = [...parts, '0', '0'].slice(0, 3).join('.');
  const message = `${written} is a number to YAML, not a version: quote it (version: '${/^\d+(\.\d+){0,2}$/.test(written) ? semver : written}'); a semantic version such as '1.0.0'`;
  const issues = error.detail.map((i) => (i.field === 'version' ? { ...i, message } : i));
  const first = issues[0];
  return new ValidationError('invalid_type', issues, first ? `${first.field}: ${first.message}` : undefined);
}

async function yamlFiles(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    for (const e of entries) {
      const path = join(dir, e.name);
      if (e.isDirectory()) await walk(path);
      else if (e.isFile() && /\.ya?ml$/.test(e.name)) out.push(path);
    }
  };
  await walk(root);
  return out.sort();
}

const isMissing = (error: unknown): boolean => (error as NodeJS.ErrnoException)?.code === 'ENOENT';

/**
 * Reads a policy directory. An unreadable directory or `directory.yaml` is an `err`; a policy file
 * that does not parse is listed in `errors` (kind `invalid`) and left out of `policies`.
 */
export async function loadPolicyBundle(dir: string): Promise<Result<PolicyBundle, GovernanceError>> {
  let directoryText: string;
  try {
    const info = await stat(join(dir, 'directory.yaml'));
    if (info.size > MAX_POLICY_FILE_BYTES) {
      return err(ValidationError.invalid('directory.yaml', `larger than ${MAX_POLICY_FILE_BYTES} bytes`));
    }
    directoryText = await readFile(join(dir, 'directory.yaml'), 'utf8');
  } catch (error) {
    return err(
      ValidationError.invalid(
        'directory.yaml',
        isMissing(error)
          ? `${join(dir, 'directory.yaml')} does not exist`
          : `cannot read ${join(dir, 'directory.yaml')}: ${(error as Error).message}`,
      ),
    );
  }
  const loaded = loadOrgDirectoryYaml(directoryText);
  if (loaded.isErr()) return err(loaded.error);
  const { definition, directory } = loaded.value;

  let files: string[] = [];
  try {
    files = await yamlFiles(join(dir, 'policies'));
  } catch (error) {
    if (!isMissing(error)) {
      return err(
        ValidationError.invalid(
          'policies',
          `cannot read ${join(dir, 'policies')}: ${(error as Error).message}`,
        ),
      );
    }
  }
  const policies: PolicyDocument[] = [];
  const errors: BundleFileError[] = [];
  for (const path of files) {
    const file = relative(dir, path).split(sep).join('/');
    try {
      const info = await stat(path);
      if (info.size > MAX_POLICY_FILE_BYTES) {
        errors.push({ file, kind: 'invalid', message: `file is larger than ${MAX_POLICY_FILE_BYTES} bytes` });
        continue;
      }
      const parsed = parsePolicyFile(await readFile(path, 'utf8'), file);
      if (parsed.isOk()) policies.push(parsed.value);
      else errors.push(parsed.error);
    } catch (error) {
      errors.push({ file, kind: 'invalid', message: `cannot read: ${(error as Error).message}` });
    }
  }
  return ok({ dir, tenantId: definition.tenant, directory, definition, policies, errors });
}

/** One violation of a bundle, as printed by `agentgov policy validate --json`. */
export interface BundleViolation {
  file: string;
  key: string;
  scope: string;
  scopeId: string;
  value: unknown;
  parentScope: string;
  parentScopeId: string;
  parentValue: unknown;
  reason: string;
}

/** Content that is valid but probably a mistake (a feature-flag name no engine asks about). */
export interface BundleWarning extends PolicyWarning {
  file: string;
}

export interface BundleReport {
  /** Warnings do not make a bundle invalid (`agentgov policy validate --strict` fails on them). */
  valid: boolean;
  violations: BundleViolation[];
  errors: BundleFileError[];
  warnings: BundleWarning[];
}

const refKey = (r: { scope: string; scopeId: string }): string => `${r.scope}:${r.scopeId}`;

/**
 * Validates every active policy of the bundle against the effective value of its ancestors
 * (same tenant and domain, chain from the directory). Policies that target unknown nodes are
 * reported as `reference` errors and left out of the hierarchy.
 */
export async function validateBundle(bundle: PolicyBundle): Promise<BundleReport> {
  const errors: BundleFileError[] = [...bundle.errors];
  const placed: Array<{ doc: PolicyDocument; chain: { scope: Scope; scopeId: string }[] }> = [];
  for (const doc of bundle.policies) {
    if (doc.status !== 'active') continue;
    const target = await checkTarget(bundle.directory, bundle.tenantId, doc);
    if (target.isErr()) {
      errors.push({
        file: doc.file,
        kind: 'reference',
        message: target.error.message.replace(/^Invalid value for field scopeId: /, ''),
      });
      continue;
    }
    placed.push({ doc, chain: target.value });
  }
  const byNode = new Map<string, PolicyDocument[]>();
  for (const { doc } of placed) {
    const key = `${doc.domain}|${refKey(doc)}`;
    byNode.set(key, [...(byNode.get(key) ?? []), doc]);
  }
  const violations: BundleViolation[] = [];
  for (const { doc, chain } of placed) {
    const ancestors: ChainLevel[] = chain
      .filter((r) => refKey(r) !== refKey(doc))
      .map((ref) => ({
        ref,
        policies: (byNode.get(`${doc.domain}|${refKey(ref)}`) ?? []).map((p) => ({
          id: p.file,
          content: p.content,
        })),
      }));
    for (const v of violationsAgainst(doc.domain, { ref: doc, content: doc.content }, ancestors)) {
      violations.push({
        file: doc.file,
        key: v.key,
        scope: v.scope,
        scopeId: v.scopeId ?? doc.scopeId,
        value: v.value,
        parentScope: v.parentScope,
        parentScopeId: v.parentScopeId ?? '',
        parentValue: v.parentValue,
        reason: v.reason,
      });
    }
  }
  const warnings: BundleWarning[] = bundle.policies.flatMap((doc) =>
    policyContentWarnings(doc.domain, doc.content).map((w) => ({ file: doc.file, ...w })),
  );
  return { valid: violations.length === 0 && errors.length === 0, violations, errors, warnings };
}

/** The bundle's policies as stored Policy rows (ids derived from the file names' order). */
export function bundlePolicies(bundle: PolicyBundle, now: Date = new Date(0)): Policy[] {
  const at = now.toISOString();
  return bundle.policies.map((doc, i) => ({
    id: `00000000-0000-4000-8000-${(i + 1).toString(16).padStart(12, '0')}`,
    tenantId: bundle.tenantId,
    scope: doc.scope,
    scopeId: doc.scopeId,
    domain: doc.domain,
    name: doc.name,
    version: doc.version,
    content: stringify(doc.content),
    status: doc.status,
    createdBy: 'policy-bundle',
    createdAt: at,
    updatedAt: at,
    changeReason: doc.changeReason ?? `loaded from ${doc.file}`,
  }));
}

/** A built-in engine (and its resolver and store) over a bundle's policies and directory. */
export async function bundleEngine(
  bundle: PolicyBundle,
): Promise<{ engine: BuiltinDecisionEngine; resolver: EffectivePolicyResolver; store: InMemoryPolicyStore }> {
  const store = new InMemoryPolicyStore();
  for (const p of bundlePolicies(bundle)) await store.insert(p);
  const resolver = new EffectivePolicyResolver({ store, directory: bundle.directory });
  return { engine: new BuiltinDecisionEngine(resolver), resolver, store };
}
