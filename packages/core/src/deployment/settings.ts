/**
 * A kind's settings as one tree whose leaves each say, on one line, both forms of a setting: its
 * key in the file (the leaf's place in the tree) and its environment variable, with the file
 * form's zod schema. From the tree come the strict `spec` schema (and so the JSON Schema), the
 * table environment variable <-> key path, the environment overrides (12-factor: a set variable
 * wins over the file), the file's values as environment strings, and a printable copy with
 * secrets masked.
 *
 * Secrets: a secret setting takes the value itself or `{secretRef: NAME}`, read from the secret
 * store (`AGENTGOV_SECRETS: env`: the variable `AGENTGOV_SECRET_<NAME>`); either way it is never
 * printed.
 */
import nodePath from 'node:path';
import { z } from 'zod';
import { err, ok, type Result } from '../result';
import { EnvSecretStore } from '../secret/memory';
import type { DeploymentIssue } from './envelope';

export const MASK = '****';

export interface Setting {
  readonly kind: 'setting';
  /** The environment variable of the same setting (it overrides the file). */
  readonly env: string;
  /** The file form of the value (a secret also takes `{secretRef}`). */
  readonly schema: z.ZodType;
  /** The default the server applies when neither form sets it (documentation and `config print`). */
  readonly default?: string | number | boolean;
  /** `true`: never shown; `'url'`: a URL whose password is never shown. */
  readonly secret?: true | 'url';
  /** A file path: relative to the configuration file's directory (to the working directory in the environment). */
  readonly path?: true;
  /** File value → the variable's text (default: `String(value)`). */
  readonly toEnv?: (value: never) => string;
  /** The variable's text → the file form (default: the number or boolean it spells if the schema takes one, else the text). */
  readonly fromEnv?: (text: string) => unknown;
}

export type SettingsTree = { readonly [key: string]: Setting | SettingsTree };

/** One leaf: `port: setting('PORT', z.number()…, 'listen port', { default: 8080 })`. */
export function setting(
  env: string,
  schema: z.ZodType,
  description: string,
  options: Omit<Setting, 'kind' | 'env' | 'schema'> = {},
): Setting {
  const base = options.secret ? z.union([schema, SecretRefSchema], { error: SECRET_FORM }) : schema;
  return {
    kind: 'setting',
    env,
    schema: base.meta({
      description: `${description} Environment: ${env}.`,
      ...(options.default !== undefined ? { default: options.default } : {}),
    }),
    ...options,
  };
}

const SECRET_FORM = 'expected the value or {secretRef: NAME} (read from the secret store)';
export const SecretRefSchema = z
  .strictObject({
    secretRef: z
      .string()
      .regex(
        /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/,
        'a secret reference: letters, digits, ., _ and -, at most 128',
      )
      .meta({ description: 'The secret store reference (AGENTGOV_SECRETS=env: AGENTGOV_SECRET_<NAME>).' }),
  })
  .meta({ description: 'A reference to the secret store instead of the value.' });

const isSetting = (node: Setting | SettingsTree): node is Setting => node.kind === 'setting';

/** The strict `spec` schema of a tree: every key optional, unknown keys refused. */
export function settingsSchema(tree: SettingsTree): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const [key, node] of Object.entries(tree)) {
    shape[key] = (isSetting(node) ? node.schema : settingsSchema(node)).optional();
  }
  return z.strictObject(shape);
}

export interface SettingEntry extends Setting {
  /** The key path inside `spec` (`['database', 'url']`). */
  readonly key: readonly string[];
}

/** Every leaf, in the tree's order: the table environment variable <-> `spec.` key path. */
export function settingsTable(tree: SettingsTree, prefix: string[] = []): SettingEntry[] {
  return Object.entries(tree).flatMap(([key, node]) =>
    isSetting(node) ? [{ ...node, key: [...prefix, key] }] : settingsTable(node, [...prefix, key]),
  );
}

/** A zod `refine` test from a parser that throws: true when `parse(value)` does not throw. */
export const parsesWith =
  <T>(parse: (value: T) => unknown) =>
  (value: T): boolean => {
    try {
      parse(value);
      return true;
    } catch {
      return false;
    }
  };

export const specPath = (entry: SettingEntry): string => ['spec', ...entry.key].join('.');

/** The values a (validated) spec sets, by entry. */
export type SettingValues = Map<SettingEntry, unknown>;

/**
 * The values a validated spec sets, ready to use: secret references read from the environment's
 * secret store (a missing secret is an issue), relative paths resolved against `baseDir`.
 */
export function fileSettings(
  table: readonly SettingEntry[],
  spec: unknown,
  options: { baseDir: string; env: Record<string, string | undefined> },
): Result<SettingValues, DeploymentIssue[]> {
  const values: SettingValues = new Map();
  const issues: DeploymentIssue[] = [];
  for (const entry of table) {
    let value = valueAt(spec, entry.key);
    if (value === undefined) continue;
    if (isSecretRef(value)) {
      const { secretRef } = value;
      const variable = EnvSecretStore.variableName(secretRef);
      value = options.env[variable] || undefined;
      if (value === undefined) {
        issues.push({ path: specPath(entry), message: `secret '${secretRef}' is not set (${variable})` });
        continue;
      }
    }
    if (entry.path && typeof value === 'string') value = nodePath.resolve(options.baseDir, value);
    values.set(entry, value);
  }
  return issues.length > 0 ? err(issues) : ok(values);
}

/**
 * The secret references a spec reads (`{secretRef: NAME}` values): the server's own secrets. A
 * server takes their variables out of the environment its secret store reads once it has the
 * values, so no tenant's configuration (a connector's credentials) can name them.
 */
export function deploymentSecretRefs(table: readonly SettingEntry[], spec: unknown): string[] {
  const refs: string[] = [];
  for (const entry of table) {
    const value = valueAt(spec, entry.key);
    if (isSecretRef(value) && typeof value.secretRef === 'string') refs.push(value.secretRef);
  }
  return refs;
}

/** The values as the environment variables of the same settings. */
export function settingsEnv(values: SettingValues): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [entry, value] of values) {
    env[entry.env] = entry.toEnv ? entry.toEnv(value as never) : String(value);
  }
  return env;
}

/**
 * The settings the environment sets (empty variables count as unset), in the file form and
 * checked against it; a problem names the variable and its key path.
 */
export function envSettings(
  table: readonly SettingEntry[],
  env: Record<string, string | undefined>,
): Result<SettingValues, DeploymentIssue[]> {
  const values: SettingValues = new Map();
  const issues: DeploymentIssue[] = [];
  for (const entry of table) {
    const text = env[entry.env];
    if (text === undefined || text === '') continue;
    const value = entry.fromEnv ? entry.fromEnv(text) : fromText(entry.schema, text);
    const parsed = entry.schema.safeParse(value);
    if (parsed.success) values.set(entry, parsed.data);
    else
      issues.push({
        path: specPath(entry),
        message: `${entry.env}: ${parsed.error.issues.map((i) => i.message).join('; ')}`,
      });
  }
  return issues.length > 0 ? err(issues) : ok(values);
}

/**
 * The settings as a printable `spec`: `values` over the defaults, secrets masked (`****`, and a
 * URL's password).
 */
export function printableSpec(
  table: readonly SettingEntry[],
  values: SettingValues,
): Record<string, unknown> {
  const spec: Record<string, unknown> = {};
  for (const entry of table) {
    const value = values.has(entry) ? values.get(entry) : entry.default;
    if (value === undefined) continue;
    setAt(spec, entry.key, masked(entry, value));
  }
  return spec;
}

function masked(entry: SettingEntry, value: unknown): unknown {
  if (!entry.secret) return value;
  if (entry.secret === 'url' && typeof value === 'string') return maskUrlPassword(value);
  return MASK;
}

/** Every URL in `url` (the whole text, or URLs inside it: `--dsn=postgres://u:pw@db`) with its password (if any) replaced by `****`. */
export function maskUrlPassword(url: string): string {
  return url.replace(/([a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)[^@/\s]*@/gi, `$1${MASK}@`);
}

/**
 * A variable's text in the form the schema wants: the number or boolean it spells if the schema
 * takes that (`2` for a hop count, `true`), else the text.
 */
function fromText(schema: z.ZodType, text: string): unknown {
  const forms: unknown[] = [];
  if (/^-?\d+(\.\d+)?$/.test(text.trim())) forms.push(Number(text));
  if (text === 'true' || text === 'false') forms.push(text === 'true');
  return forms.find((f) => schema.safeParse(f).success) ?? text;
}

function isSecretRef(value: unknown): value is { secretRef: string } {
  return typeof value === 'object' && value !== null && 'secretRef' in value;
}

function valueAt(value: unknown, key: readonly string[]): unknown {
  let at = value;
  for (const k of key) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as Record<string, unknown>)[k];
  }
  return at;
}

function setAt(target: Record<string, unknown>, key: readonly string[], value: unknown): void {
  let at = target;
  for (const k of key.slice(0, -1)) {
    at[k] ??= {};
    at = at[k] as Record<string, unknown>;
  }
  at[key.at(-1) as string] = value;
}
