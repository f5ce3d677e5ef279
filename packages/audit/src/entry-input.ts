/**
 * Validation and normalisation of an appended entry, before anything is hashed: the identifier
 * paths a log commits, the original (slow) validation, and the synchronous private copy the fast
 * path starts from. Both paths accept and reject the same inputs with the same errors.
 */
import {
  ACTION_TYPES,
  AUDIT_OUTCOMES,
  type AuditEntry,
  type AuditEntryInput,
  CLASSIFICATION_LEVELS,
  type FieldIssue,
  POLICY_RESULTS,
  ValidationError,
} from '@agentgov/core';
import { err, ok, type Result } from 'neverthrow';
import { canonicalJson, canonicalString } from './crypto';
import { ANONYMIZED_PREFIX, PERSONAL_IDENTIFIER_PATHS, valueAt } from './records';

/** A valid entry, normalised, before the chain head assigns its id (and, if absent, its timestamp). */
export type Validated = Omit<AuditEntry, 'id' | 'timestamp'> & { timestamp?: string };

/** The identifier paths of one log, resolved once in the forms its hot paths use. */
export interface IdentifierPaths {
  /** `userId` first, then the configured paths, without duplicates. */
  paths: string[];
  /** Each path with its parts (for `valueAt`). */
  split: { path: string; parts: string[] }[];
  /** Sorted by UTF-16 code units, each with its canonical JSON string (the key order of `commitments`). */
  sorted: { path: string; json: string | undefined }[];
  /** Whether entries may take the fast path (see `record-builder.ts`). */
  fastPath: boolean;
  /**
   * Whether every path is `userId` or a member of `actionDetail` (`actionDetail.<name>`), as the
   * default paths are: the fast path then writes the canonical JSON directly (`prepare-direct.ts`).
   */
  direct: boolean;
}

export function resolveIdentifierPaths(
  configured: readonly string[] = PERSONAL_IDENTIFIER_PATHS,
): IdentifierPaths {
  const paths = [...new Set(['userId', ...configured])];
  const sorted = [...paths].sort().map((path) => ({ path, json: canonicalString(path) }));
  return {
    paths,
    split: paths.map((path) => ({ path, parts: path.split('.') })),
    sorted,
    // Commitments of `id` or `timestamp` paths are only known under the lock: no fast path then.
    fastPath:
      !paths.some((p) => /^(id|timestamp)(\.|$)/.test(p)) && sorted.every((p) => p.json !== undefined),
    direct: paths.every(
      (p) => p === 'userId' || (/^actionDetail\.[^.]+$/.test(p) && p !== 'actionDetail.__proto__'),
    ),
  };
}

const ACTIONS: ReadonlySet<unknown> = new Set(ACTION_TYPES);
const RESULTS: ReadonlySet<unknown> = new Set(POLICY_RESULTS);
const OUTCOMES: ReadonlySet<unknown> = new Set(AUDIT_OUTCOMES);
const LEVELS: ReadonlySet<unknown> = new Set(CLASSIFICATION_LEVELS);

const name = (v: unknown): boolean => typeof v === 'string' && v.length >= 1 && v.length <= 255;
const count = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
/** UTC timestamps with days 01–28: valid in every month, so a match is a valid ISO datetime. */
const EVERY_MONTH_TIMESTAMP =
  /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|1\d|2[0-8])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?Z$/;
const timestamp = (v: unknown): boolean => typeof v === 'string' && EVERY_MONTH_TIMESTAMP.test(v);

function accessed(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  for (const d of v) {
    if (d === null || typeof d !== 'object' || Array.isArray(d)) return false;
    const a = d as Record<string, unknown>;
    if (typeof a.source !== 'string' || typeof a.purpose !== 'string' || !LEVELS.has(a.classification))
      return false;
  }
  return true;
}

/** A plain object without symbol keys (which the schema's record refuses). */
const plainObject = (v: unknown): boolean =>
  v !== null &&
  typeof v === 'object' &&
  Object.getPrototypeOf(v) === Object.prototype &&
  Object.getOwnPropertySymbols(v).length === 0;

function tokens(v: unknown): boolean {
  if (v === null) return true;
  const t = v as Record<string, unknown>;
  return typeof v === 'object' && !Array.isArray(v) && count(t.input) && count(t.output);
}

/**
 * The members other than `id` and `timestamp`, checked cheaply and at least as strictly as the
 * schema. With `absentIsDefault` (an input), a missing member the schema defaults passes.
 */
function plainMembers(e: Record<string, unknown>, absentIsDefault: boolean): boolean {
  const d = absentIsDefault;
  return (
    name(e.tenantId) &&
    name(e.userId) &&
    ACTIONS.has(e.actionType) &&
    ((d && e.actionDetail === undefined) || plainObject(e.actionDetail)) &&
    ((d && e.dataAccessed === undefined) || accessed(e.dataAccessed)) &&
    ((d && e.modelUsed === undefined) || e.modelUsed === null || typeof e.modelUsed === 'string') &&
    ((d && e.modelTokens === undefined) || tokens(e.modelTokens)) &&
    ((d && e.dataClassification === undefined) || LEVELS.has(e.dataClassification)) &&
    name(e.policyApplied) &&
    RESULTS.has(e.policyResult) &&
    ((d && e.policyReason === undefined) || typeof e.policyReason === 'string') &&
    OUTCOMES.has(e.outcome) &&
    name(e.requestId)
  );
}

/**
 * A cheap structural check of a stored entry that is at least as strict as `AuditEntrySchema`
 * (anything it accepts, the schema accepts); the schema itself runs only when this check fails,
 * to name the fault (or to accept what only it allows, such as a missing member it defaults or a
 * 31st of a month).
 */
export function plainlyValidEntry(e: Record<string, unknown>): boolean {
  return typeof e.id === 'string' && e.id.length === 26 && timestamp(e.timestamp) && plainMembers(e, false);
}

/**
 * The same check of an appended input against `AuditEntryInputSchema` (no id; the timestamp and
 * the defaulted members may be absent): what it accepts, the schema accepts, and `snapshot` of it
 * equals `snapshot` of the schema's output. Zod runs only when it fails, to name the fault.
 */
export function plainlyValidInput(e: unknown): boolean {
  if (e === null || typeof e !== 'object') return false;
  const input = e as Record<string, unknown>;
  return (input.timestamp === undefined || timestamp(input.timestamp)) && plainMembers(input, true);
}

/** Field names of the input at `prefix` (the index of a batch input, or '' for a single append). */
export function fieldIn(prefix: string): (field: string) => string {
  return (f) => (prefix ? `${prefix}.${f}` : f);
}

/** Rejects values a JSON column cannot hold identically (NaN, Infinity, BigInt, lone surrogates, NUL). */
function jsonIssue(entry: unknown): string | undefined {
  let text: string;
  try {
    text = canonicalJson(entry);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  if (text.includes('\\u0000')) return 'strings may not contain NUL characters';
  return undefined;
}

/** A text holding a character the JSON columns refuse (the check of `jsonIssue`, on one string). */
export const hasNul = (text: string): boolean => text.includes('\u0000') || text.includes('\\u0000');

/** Identifiers that start with the anonymization prefix (reserved for erased values). */
export function reservedIssues(
  entry: Validated,
  identifiers: IdentifierPaths,
  field: (f: string) => string,
): FieldIssue[] {
  const reserved: FieldIssue[] = [];
  for (const { path, parts } of identifiers.split) {
    const v = valueAt(entry, parts);
    if (typeof v === 'string' && v.startsWith(ANONYMIZED_PREFIX)) {
      reserved.push({
        field: field(path),
        message: `identifiers may not start with '${ANONYMIZED_PREFIX}'`,
      });
    }
  }
  return reserved;
}

/** The original validation (any value zod accepts); also the reference for the fast path. */
export function validateSlow(
  value: Validated,
  identifiers: IdentifierPaths,
  prefix: string,
): Result<Validated, ValidationError> {
  const field = fieldIn(prefix);
  const issue = jsonIssue(value);
  if (issue) return err(ValidationError.invalid(field('actionDetail'), issue));
  const entry = { ...value, actionDetail: JSON.parse(JSON.stringify(value.actionDetail)) } as Validated;
  if (entry.timestamp !== undefined) entry.timestamp = new Date(entry.timestamp).toISOString();
  const reserved = reservedIssues(entry, identifiers, field);
  if (reserved.length > 0) return err(new ValidationError('invalid_type', reserved));
  return ok(entry);
}

/**
 * A private copy of plain JSON data, equal to JSON.parse(JSON.stringify(value)); undefined when the
 * value is anything else (toJSON, boxed primitives, NaN/Infinity, bigint, undefined in arrays,
 * `__proto__` keys, nesting deeper than 64), which the slow path handles as before.
 */
function plainCopy(value: unknown, depth = 0): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value + 0 : undefined; // -0 → 0, as after a JSON round trip
    case 'object': {
      if (value === null) return null;
      if (depth >= 64 || typeof (value as { toJSON?: unknown }).toJSON === 'function') return undefined;
      if (Array.isArray(value)) {
        const out: unknown[] = new Array(value.length);
        for (let i = 0; i < value.length; i++) {
          const item = plainCopy(value[i], depth + 1);
          if (item === undefined) return undefined;
          out[i] = item;
        }
        return out;
      }
      if (value instanceof Number || value instanceof String || value instanceof Boolean) return undefined;
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(value)) {
        if (key === '__proto__') return undefined;
        const v = (value as Record<string, unknown>)[key];
        if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
        const item = plainCopy(v, depth + 1);
        if (item === undefined) return undefined;
        out[key] = item;
      }
      return out;
    }
    default:
      return undefined;
  }
}

/**
 * Fast path, step 1 (synchronous, so the caller's objects are copied at call time, as by
 * `validateSlow`): the entry with private copies of its objects (plain-JSON `actionDetail`),
 * the schema's defaults for absent members and the normalized timestamp. Takes the schema's
 * output or an input `plainlyValidInput` accepts (the same result for both). Undefined when the
 * input needs the original path.
 */
export function snapshot(value: AuditEntryInput): Validated | undefined {
  const actionDetail = plainCopy(value.actionDetail ?? {}) as Validated['actionDetail'] | undefined;
  if (actionDetail === undefined) return undefined;
  const tokens = value.modelTokens;
  const entry: Validated = {
    tenantId: value.tenantId,
    userId: value.userId,
    actionType: value.actionType,
    actionDetail,
    dataAccessed: (value.dataAccessed ?? []).map((d) => ({
      source: d.source,
      classification: d.classification,
      purpose: d.purpose,
    })),
    modelUsed: value.modelUsed ?? null,
    modelTokens: tokens ? { input: tokens.input, output: tokens.output } : null,
    dataClassification: value.dataClassification ?? 'public',
    policyApplied: value.policyApplied,
    policyResult: value.policyResult,
    policyReason: value.policyReason ?? '',
    outcome: value.outcome,
    requestId: value.requestId,
  };
  if (value.timestamp !== undefined) {
    if (typeof value.timestamp !== 'string' || hasNul(value.timestamp)) return undefined;
    entry.timestamp = new Date(value.timestamp).toISOString();
  }
  return entry;
}
