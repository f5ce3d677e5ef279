/**
 * Validation and normalisation of an appended entry, before anything is hashed: the identifier
 * paths a log commits, the original (slow) validation, and the synchronous private copy the fast
 * path starts from. Both paths accept and reject the same inputs with the same errors.
 */
import { type AuditEntry, type FieldIssue, ValidationError } from '@agentgov/core';
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
  };
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
 * `validateSlow`): the entry with a private copy of plain-JSON `actionDetail` and the
 * normalized timestamp. Undefined when the input needs the original path.
 */
export function snapshot(value: Validated): Validated | undefined {
  const actionDetail = plainCopy(value.actionDetail) as Validated['actionDetail'] | undefined;
  if (actionDetail === undefined) return undefined;
  const entry: Validated = {
    tenantId: value.tenantId,
    userId: value.userId,
    actionType: value.actionType,
    actionDetail,
    dataAccessed: value.dataAccessed,
    modelUsed: value.modelUsed,
    modelTokens: value.modelTokens,
    dataClassification: value.dataClassification,
    policyApplied: value.policyApplied,
    policyResult: value.policyResult,
    policyReason: value.policyReason,
    outcome: value.outcome,
    requestId: value.requestId,
  };
  if (value.timestamp !== undefined) {
    if (typeof value.timestamp !== 'string' || hasNul(value.timestamp)) return undefined;
    entry.timestamp = new Date(value.timestamp).toISOString();
  }
  return entry;
}
