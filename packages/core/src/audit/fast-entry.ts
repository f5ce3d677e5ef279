/**
 * The accept-only fast path of `AuditEntrySchema` for the in-memory sink: what our own typed code
 * appends (plain objects, every member of the right type and length, a UTC timestamp valid in
 * every month) is built here as the schema would build it — same members, same key order, the
 * defaults filled in, `actionDetail` a shallow copy, `dataAccessed` and `modelTokens` new objects.
 * Anything else, every refusal included, goes to the schema itself, which stays the one source of
 * truth (`test/audit-fast-entry.property.test.ts` checks with fast-check that whatever this
 * accepts the schema accepts with the same output).
 */
import { CLASSIFICATION_LEVELS } from '../classification-lattice';
import {
  ACTION_TYPES,
  AUDIT_OUTCOMES,
  type AuditEntry,
  type AuditEntryInput,
  POLICY_RESULTS,
} from './schema';

const ACTIONS: ReadonlySet<unknown> = new Set(ACTION_TYPES);
const RESULTS: ReadonlySet<unknown> = new Set(POLICY_RESULTS);
const OUTCOMES: ReadonlySet<unknown> = new Set(AUDIT_OUTCOMES);
const LEVELS: ReadonlySet<unknown> = new Set(CLASSIFICATION_LEVELS);

/** 1..255 UTF-16 code units (what zod's min/max count). */
const name = (v: unknown): v is string => typeof v === 'string' && v.length >= 1 && v.length <= 255;
const count = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
/** UTC timestamps with days 01–28: valid in every month, so a match is a valid ISO datetime. */
const EVERY_MONTH_TIMESTAMP =
  /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|1\d|2[0-8])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?Z$/;

/** An object with `Object.prototype` or no prototype, no symbol keys and no own `__proto__` key. */
const plainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' &&
  v !== null &&
  isPlainProto(Object.getPrototypeOf(v)) &&
  !Object.hasOwn(v, '__proto__') &&
  Object.getOwnPropertySymbols(v).length === 0;

const isPlainProto = (p: unknown): boolean => p === Object.prototype || p === null;

type Accessed = AuditEntry['dataAccessed'];

function accessed(v: unknown): Accessed | undefined {
  if (v === undefined) return [];
  if (!Array.isArray(v)) return undefined;
  const out: Accessed = new Array(v.length);
  for (let i = 0; i < v.length; i++) {
    const d: unknown = v[i];
    if (!plainObject(d)) return undefined;
    const { source, classification, purpose } = d;
    if (typeof source !== 'string' || typeof purpose !== 'string' || !LEVELS.has(classification))
      return undefined;
    out[i] = { source, classification: classification as Accessed[number]['classification'], purpose };
  }
  return out;
}

/**
 * What `AuditEntrySchema` returns for `{ ...input, id, timestamp }` (the timestamp: the input's
 * own, else the sink's clock), when that is plainly valid; undefined otherwise (then the schema decides).
 */
export function fastAuditEntry(
  input: AuditEntryInput,
  id: string,
  timestamp: unknown,
): AuditEntry | undefined {
  const e = input as Record<string, unknown>;
  if (!plainObject(e)) return undefined;
  const { tenantId, userId, actionType, policyApplied, policyResult, outcome, requestId } = e;
  if (
    !name(tenantId) ||
    !name(userId) ||
    !ACTIONS.has(actionType) ||
    !name(policyApplied) ||
    !RESULTS.has(policyResult) ||
    !OUTCOMES.has(outcome) ||
    !name(requestId) ||
    id.length !== 26
  )
    return undefined;
  if (typeof timestamp !== 'string' || !EVERY_MONTH_TIMESTAMP.test(timestamp)) return undefined;
  const detail = e.actionDetail;
  if (detail !== undefined && !plainObject(detail)) return undefined;
  const dataAccessed = accessed(e.dataAccessed);
  if (!dataAccessed) return undefined;
  const modelUsed = e.modelUsed === undefined ? null : e.modelUsed;
  if (modelUsed !== null && typeof modelUsed !== 'string') return undefined;
  let modelTokens: AuditEntry['modelTokens'] = null;
  if (e.modelTokens !== undefined && e.modelTokens !== null) {
    if (!plainObject(e.modelTokens)) return undefined;
    const { input: tokensIn, output: tokensOut } = e.modelTokens;
    if (!count(tokensIn) || !count(tokensOut)) return undefined;
    modelTokens = { input: tokensIn, output: tokensOut };
  }
  const dataClassification = e.dataClassification === undefined ? 'public' : e.dataClassification;
  if (!LEVELS.has(dataClassification)) return undefined;
  const policyReason = e.policyReason === undefined ? '' : e.policyReason;
  if (typeof policyReason !== 'string') return undefined;
  return {
    tenantId,
    userId,
    timestamp,
    actionType: actionType as AuditEntry['actionType'],
    actionDetail: detail === undefined ? {} : { ...detail },
    dataAccessed,
    modelUsed,
    modelTokens,
    dataClassification: dataClassification as AuditEntry['dataClassification'],
    policyApplied,
    policyResult: policyResult as AuditEntry['policyResult'],
    policyReason,
    outcome: outcome as AuditEntry['outcome'],
    requestId,
    id,
  };
}
