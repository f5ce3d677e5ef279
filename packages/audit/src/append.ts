/**
 * The append path: validate every input (fast path or original, see `entry-input.ts`), prepare
 * what does not depend on the chain head, group per tenant, then one locked `store.append` per
 * tenant whose `build(head)` chains and hashes the records (`record-builder.ts`).
 */
import {
  type AuditEntry,
  type AuditEntryInput,
  AuditEntryInputSchema,
  type CallOptions,
  type GovernanceError,
  parseWith,
  type ValidationError,
} from '@agentgov/core';
import { err, ok, type Result } from 'neverthrow';
import { plainlyValidInput, snapshot, type Validated, validateSlow } from './entry-input';
import type { TenantKeys } from './keys';
import type { LogContext } from './log-context';
import { type Pending, prepare, recordBuilder, validatedOf } from './record-builder';

/** The validated inputs per tenant (order kept), and where each input landed. */
interface Grouped {
  groups: Map<string, Pending[]>;
  order: { tenantId: string; index: number }[];
}

/**
 * Validates every input in order (the first invalid one is the error) and prepares what does
 * not depend on the chain head; grouped per tenant, with the position of each input. Inputs
 * are parsed and copied before the first `await`, so later changes by the caller do not count.
 */
async function validateAll(
  ctx: LogContext,
  inputs: readonly AuditEntryInput[],
  prefixOf: (i: number) => string,
): Promise<Result<Grouped, ValidationError>> {
  const { identifiers } = ctx;
  // Step 1, synchronous: zod, then a private copy (fast path) or the original validation.
  const staged: ({ fast: Validated } | { validated: Validated })[] = [];
  let firstError: ValidationError | undefined;
  for (const [i, input] of inputs.entries()) {
    // An input that is plainly valid is copied as it is (zod would give the same value); zod
    // parses the others, and names the fault of an invalid one.
    if (identifiers.fastPath && plainlyValidInput(input)) {
      const copy = snapshot(input);
      if (copy) {
        staged.push({ fast: copy });
        continue;
      }
    }
    const parsed = parseWith(AuditEntryInputSchema, input, prefixOf(i));
    if (parsed.isErr()) {
      firstError = parsed.error;
      break;
    }
    const copy = identifiers.fastPath ? snapshot(parsed.value) : undefined;
    if (copy) {
      staged.push({ fast: copy });
      continue;
    }
    const slow = validateSlow(parsed.value as Validated, identifiers, prefixOf(i));
    if (slow.isErr()) {
      firstError = slow.error;
      break;
    }
    staged.push({ validated: slow.value });
  }
  // Step 2: commitments and canonical JSON (needs the key); an earlier input's error comes first.
  let keys: TenantKeys | undefined;
  let keyError: unknown;
  if (staged.some((s) => 'fast' in s)) {
    try {
      keys = await ctx.tenantKeys();
    } catch (error) {
      keyError = error; // thrown after validation, as before: an invalid input is reported first
    }
  }
  const groups = new Map<string, Pending[]>();
  const order: { tenantId: string; index: number }[] = [];
  for (const [i, stage] of staged.entries()) {
    let pending: Pending;
    if ('fast' in stage) {
      const prepared = keys ? prepare(stage.fast, keys, identifiers, prefixOf(i)) : undefined;
      if (prepared?.isErr()) return err(prepared.error);
      if (prepared?.isOk()) pending = { prepared: prepared.value };
      else {
        // The copy is plain JSON equal to the input: the original path gives the same result.
        const slow = validateSlow(stage.fast, identifiers, prefixOf(i));
        if (slow.isErr()) return err(slow.error);
        pending = { validated: slow.value };
      }
    } else pending = stage;
    const tenantId = validatedOf(pending).tenantId;
    const group = groups.get(tenantId) ?? [];
    order.push({ tenantId, index: group.length });
    group.push(pending);
    groups.set(tenantId, group);
  }
  if (firstError) return err(firstError);
  if (keyError !== undefined) throw keyError;
  return ok({ groups, order });
}

/** One locked append of a tenant's entries; the entries as written. */
async function appendGroup(
  ctx: LogContext,
  tenantId: string,
  entries: Pending[],
  callOptions?: CallOptions,
): Promise<AuditEntry[]> {
  const key = (await ctx.tenantKeys()).get(tenantId);
  const records = await ctx.store.append(tenantId, recordBuilder(entries, key, ctx), callOptions);
  return records.map((r) => r.entry);
}

export async function appendOne(
  ctx: LogContext,
  input: AuditEntryInput,
  callOptions?: CallOptions,
): Promise<Result<AuditEntry, GovernanceError>> {
  const v = await validateAll(ctx, [input], () => '');
  if (v.isErr()) return err(v.error);
  const [tenantId, group] = [...v.value.groups][0] as [string, Pending[]];
  const [entry] = await appendGroup(ctx, tenantId, group, callOptions);
  return ok(entry as AuditEntry);
}

export async function appendMany(
  ctx: LogContext,
  inputs: readonly AuditEntryInput[],
  callOptions?: CallOptions,
): Promise<Result<AuditEntry[], GovernanceError>> {
  const v = await validateAll(ctx, inputs, (i) => `${i}`);
  if (v.isErr()) return err(v.error);
  const written = new Map<string, AuditEntry[]>();
  for (const [tenantId, group] of v.value.groups)
    written.set(tenantId, await appendGroup(ctx, tenantId, group, callOptions));
  return ok(v.value.order.map(({ tenantId, index }) => written.get(tenantId)?.[index] as AuditEntry));
}
