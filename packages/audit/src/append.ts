/**
 * The append path: validate every input (fast path or original, see `entry-input.ts`) and prepare
 * what does not depend on the chain head — synchronously, once the commitment keys are loaded —
 * then queue the entries per tenant (`append-queue.ts`): the appends of a tenant in one microtask
 * checkpoint, or made while its previous write is in flight, share one locked `store.append`
 * whose `build(head)` chains and hashes the records (`record-builder.ts`).
 */
import {
  type AuditEntry,
  type AuditEntryInput,
  AuditEntryInputSchema,
  type CallOptions,
  type GovernanceError,
  parseWith,
  toGovernanceError,
  type ValidationError,
} from '@agentgov/core';
import { err, ok, type Result } from 'neverthrow';
import type { AppendQueue } from './append-queue';
import { plainlyValidInput, snapshot, type Validated, validateSlow } from './entry-input';
import type { TenantKeys } from './keys';
import type { LogContext } from './log-context';
import { type Pending, type Prepared, prepare, validatedOf } from './record-builder';

/** The validated inputs per tenant (order kept), and where each input landed. */
interface Grouped {
  groups: Map<string, Pending[]>;
  order: { tenantId: string; index: number }[];
}

type Staged = { fast: Validated } | { validated: Validated };

/**
 * Validates every input in order (the first invalid one is the error) and prepares what does
 * not depend on the chain head; grouped per tenant, with the position of each input. Inputs
 * are parsed and copied synchronously, at the call, so later changes by the caller do not count;
 * the result is synchronous once the commitment keys are loaded (an Ok one comes only with them).
 */
function validateAll(
  ctx: LogContext,
  inputs: readonly AuditEntryInput[],
  prefixOf: (i: number) => string,
): Result<Grouped, ValidationError> | Promise<Result<Grouped, ValidationError>> {
  const { identifiers } = ctx;
  // Step 1, synchronous: zod, then a private copy (fast path) or the original validation.
  const staged: Staged[] = [];
  let firstError: ValidationError | undefined;
  let needsKeys = false;
  for (let i = 0; i < inputs.length; i++) {
    const input = inputs[i] as AuditEntryInput;
    // An input that is plainly valid is copied as it is (zod would give the same value); zod
    // parses the others, and names the fault of an invalid one.
    if (identifiers.fastPath && plainlyValidInput(input)) {
      const copy = snapshot(input);
      if (copy) {
        staged.push({ fast: copy });
        needsKeys = true;
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
      needsKeys = true;
      continue;
    }
    const slow = validateSlow(parsed.value as Validated, identifiers, prefixOf(i));
    if (slow.isErr()) {
      firstError = slow.error;
      break;
    }
    staged.push({ validated: slow.value });
  }
  // Step 2 needs the keys (commitments, canonical JSON), and so does the build: read once per
  // log, then at hand. Each call waits for a first read with one `then`: queued in call order.
  const keys = ctx.loadedKeys();
  if (keys || (!needsKeys && (firstError || staged.length === 0)))
    return finish(ctx, staged, firstError, keys, undefined, prefixOf);
  return ctx.tenantKeys().then(
    (loaded) => finish(ctx, staged, firstError, loaded, undefined, prefixOf),
    // Thrown after validation, as before: an invalid input is reported first.
    (keyError: unknown) =>
      finish(ctx, staged, firstError, undefined, keyError ?? new Error('no keys'), prefixOf),
  );
}

/** Step 2: commitments and canonical JSON; an earlier input's error comes first. */
function finish(
  ctx: LogContext,
  staged: readonly Staged[],
  firstError: ValidationError | undefined,
  keys: TenantKeys | undefined,
  keyError: unknown,
  prefixOf: (i: number) => string,
): Result<Grouped, ValidationError> {
  const { identifiers } = ctx;
  const groups = new Map<string, Pending[]>();
  const order: { tenantId: string; index: number }[] = [];
  for (let i = 0; i < staged.length; i++) {
    const stage = staged[i] as Staged;
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
    const group = groups.get(tenantId);
    if (group) {
      order.push({ tenantId, index: group.length });
      group.push(pending);
    } else {
      order.push({ tenantId, index: 0 });
      groups.set(tenantId, [pending]);
    }
  }
  if (firstError) return err(firstError);
  if (keyError !== undefined) throw keyError;
  return ok({ groups, order });
}

/** Queues one tenant's entries; resolves with them as written (rejects with the write's error). */
function written(
  queue: AppendQueue,
  tenantId: string,
  entries: readonly Pending[],
  options: CallOptions | undefined,
): Promise<AuditEntry[]> {
  return new Promise((resolve, reject) => {
    queue.push(tenantId, entries, options, (out, error) => (out ? resolve(out) : reject(error)));
  });
}

/** One entry: validated now, queued with the other appends of its tenant (see `append-queue.ts`). */
export function appendOne(
  ctx: LogContext,
  queue: AppendQueue,
  input: AuditEntryInput,
  options?: CallOptions,
): Promise<Result<AuditEntry, GovernanceError>> {
  try {
    const fast = fastOne(ctx, input);
    if (fast) return queuedOne(queue, fast, options);
    // Ok only with the keys loaded (see validateAll).
    const v = validateAll(ctx, [input], () => '');
    if (!(v instanceof Promise))
      return v.isErr() ? Promise.resolve(err(v.error)) : queued(queue, v.value, options);
    return v.then(
      (validated) => (validated.isErr() ? err(validated.error) : queued(queue, validated.value, options)),
      (error: unknown) => err(toGovernanceError(error)),
    );
  } catch (error) {
    return Promise.resolve(err(toGovernanceError(error)));
  }
}

/**
 * One plainly valid input, snapshot and prepared, the keys loaded: what `validateAll` makes of it
 * (the same calls, in the same order), without its per-tenant grouping. Undefined for anything
 * else (an invalid input, keys not loaded, an entry `prepare` declines or refuses): `validateAll`
 * then takes it from the start (the snapshot is a pure copy: taking it again changes nothing).
 */
function fastOne(ctx: LogContext, input: AuditEntryInput): Prepared | undefined {
  const { identifiers } = ctx;
  if (!identifiers.fastPath || !plainlyValidInput(input)) return undefined;
  const keys = ctx.loadedKeys();
  if (!keys) return undefined;
  const copy = snapshot(input);
  if (!copy) return undefined;
  const prepared = prepare(copy, keys, identifiers, '');
  return prepared?.isOk() ? prepared.value : undefined;
}

/** One prepared entry queued (as `queued` queues the one group `validateAll` makes of it). */
function queuedOne(
  queue: AppendQueue,
  prepared: Prepared,
  options: CallOptions | undefined,
): Promise<Result<AuditEntry, GovernanceError>> {
  return new Promise((resolve) => {
    queue.push(prepared.entry.tenantId, [{ prepared }], options, (out, error) =>
      resolve(out ? ok(out[0] as AuditEntry) : err(toGovernanceError(error))),
    );
  });
}

/** The one validated entry queued: its own promise, settled as its group's write returns. */
function queued(
  queue: AppendQueue,
  v: Grouped,
  options: CallOptions | undefined,
): Promise<Result<AuditEntry, GovernanceError>> {
  const [tenantId, group] = v.groups.entries().next().value as [string, Pending[]];
  return new Promise((resolve) => {
    queue.push(tenantId, group, options, (out, error) =>
      resolve(out ? ok(out[0] as AuditEntry) : err(toGovernanceError(error))),
    );
  });
}

export function appendMany(
  ctx: LogContext,
  queue: AppendQueue,
  inputs: readonly AuditEntryInput[],
  options?: CallOptions,
): Promise<Result<AuditEntry[], GovernanceError>> {
  // Queued at the call when the keys are loaded, like `append`: call order is chain order.
  const v = validateAll(ctx, inputs, (i) => `${i}`);
  return v instanceof Promise ? v.then((r) => writeAll(queue, r, options)) : writeAll(queue, v, options);
}

async function writeAll(
  queue: AppendQueue,
  v: Result<Grouped, ValidationError>,
  options: CallOptions | undefined,
): Promise<Result<AuditEntry[], GovernanceError>> {
  if (v.isErr()) return err(v.error);
  // One tenant after the other, as before: a failed tenant stops the batch (earlier ones stay).
  const byTenant = new Map<string, AuditEntry[]>();
  for (const [tenantId, group] of v.value.groups)
    byTenant.set(tenantId, await written(queue, tenantId, group, options));
  return ok(v.value.order.map(({ tenantId, index }) => byTenant.get(tenantId)?.[index] as AuditEntry));
}
