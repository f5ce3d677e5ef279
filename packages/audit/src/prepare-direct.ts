/**
 * `prepare` for the logs whose identifier paths are `userId` and members of `actionDetail` (the
 * default ones): the canonical JSON of the committed entry is written member by member, in its
 * fixed RFC 8785 order, straight into the three pieces `preparedLeaf` joins — no committed copy
 * of the entry, no stand-ins to cut the text at. Accept-only: `undefined` sends the entry to the
 * general `prepare` (which declines, or reports, exactly as before); a property test holds the
 * two equal (test/prepare-direct.property.test.ts).
 */
import { ValidationError } from '@agentgov/core';
import { err, ok, type Result } from 'neverthrow';
import { canonicalString } from './crypto';
import { fieldIn, hasNul, type IdentifierPaths, reservedIssues, type Validated } from './entry-input';
import type { TenantKeys } from './keys';
import type { Prepared } from './record-builder';
import { ANONYMIZED_PREFIX, committedObjectText, plainCanonicalText } from './records';

/** The canonical JSON of the commitments map (its members in the sorted order of the paths). */
export function commitmentsJsonOf(commitments: Record<string, string>, identifiers: IdentifierPaths): string {
  let json = '{';
  for (const { path, json: key } of identifiers.sorted) {
    const c = commitments[path];
    if (c === undefined) continue;
    json += `${json.length === 1 ? '' : ','}${key}:"${c}"`;
  }
  return `${json}}`;
}

/** A string member as canonical JSON; undefined when it is not a string or has no canonical form. */
const str = (v: unknown): string | undefined => (typeof v === 'string' ? canonicalString(v) : undefined);

/** `prepare` written directly (see the module comment); requires `identifiers.direct`. */
export function prepareDirect(
  entry: Validated,
  keys: TenantKeys,
  identifiers: IdentifierPaths,
  prefix: string,
): Result<Prepared, ValidationError> | undefined {
  const detail = entry.actionDetail as Record<string, unknown>;
  if (detail === null || typeof detail !== 'object' || Array.isArray(detail)) return undefined;
  const tenantId = entry.tenantId;
  // Commitments, in the order of the paths (as `prepare` makes them); the detail's ones named in `top`.
  const commitments: Record<string, string> = {};
  let top: Record<string, string> | undefined;
  let userCommitment: string | undefined;
  let reserved = false;
  for (const { path, parts } of identifiers.split) {
    const v = parts.length === 1 ? entry.userId : detail[parts[1] as string];
    if (typeof v !== 'string') continue;
    if (hasNul(v) || canonicalString(v) === undefined) return undefined;
    const c = keys.commitment(tenantId, v);
    commitments[path] = c;
    if (parts.length === 1) userCommitment = c;
    else {
      top ??= Object.create(null) as Record<string, string>;
      top[parts[1] as string] = path;
    }
    if (v.startsWith(ANONYMIZED_PREFIX)) reserved = true;
  }
  if (userCommitment === undefined) return undefined;
  const detailText = committedObjectText(detail, top, commitments, 1);
  const accessed = plainCanonicalText(entry.dataAccessed, 1);
  const tokens = plainCanonicalText(entry.modelTokens, 1);
  const model = entry.modelUsed === null ? 'null' : str(entry.modelUsed);
  const actionType = str(entry.actionType);
  const classification = str(entry.dataClassification);
  const outcome = str(entry.outcome);
  const applied = str(entry.policyApplied);
  const reason = str(entry.policyReason);
  const result = str(entry.policyResult);
  const requestId = str(entry.requestId);
  const tenant = str(tenantId);
  if (
    detailText === undefined ||
    accessed === undefined ||
    tokens === undefined ||
    model === undefined ||
    actionType === undefined ||
    classification === undefined ||
    outcome === undefined ||
    applied === undefined ||
    reason === undefined ||
    result === undefined ||
    requestId === undefined ||
    tenant === undefined
  )
    return undefined;
  const beforeId = `{"actionDetail":${detailText},"actionType":${actionType},"dataAccessed":${accessed},"dataClassification":${classification},"id":`;
  const beforeTimestamp = `,"modelTokens":${tokens},"modelUsed":${model},"outcome":${outcome},"policyApplied":${applied},"policyReason":${reason},"policyResult":${result},"requestId":${requestId},"tenantId":${tenant},"timestamp":`;
  const rest = `,"userId":"${userCommitment}"}`;
  if (hasNul(beforeId) || hasNul(beforeTimestamp)) return undefined;
  if (reserved)
    return err(new ValidationError('invalid_type', reservedIssues(entry, identifiers, fieldIn(prefix))));
  return ok({
    entry,
    commitments,
    commitmentsJson: commitmentsJsonOf(commitments, identifiers),
    beforeId,
    beforeTimestamp,
    timestamp: entry.timestamp === undefined ? undefined : JSON.stringify(entry.timestamp),
    rest,
  });
}
