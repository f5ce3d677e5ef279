/**
 * The append side of the audit log: validation, identifier commitments, hashing under the
 * store's per-tenant lock, batch append, checkpoints and proofs. There is no update or delete.
 */
import {
  type AuditCheckpoint,
  type AuditEntry,
  type AuditEntryInput,
  AuditEntryInputSchema,
  type AuditRecord,
  type AuditStore,
  type CallOptions,
  type ChainHead,
  type Clock,
  createUlidFactory,
  type FieldIssue,
  GovernanceError,
  guardResult,
  NotFoundError,
  parseWith,
  type SecretStore,
  systemClock,
  ValidationError,
} from '@agentgov/core';
import type { JWK } from 'jose';
import { err, ok, type Result } from 'neverthrow';
import { signCheckpoint } from './checkpoint';
import { canonicalJson, canonicalString, GENESIS_HASH, plainCanonicalJson, sha256Hex } from './crypto';
import {
  AuditKeyError,
  DEFAULT_COMMITMENT_KEY_REF,
  DEFAULT_SIGNING_KEY_REF,
  readCommitmentSecret,
  readSigningKey,
  type SigningKey,
  TenantKeys,
} from './keys';
import { consistencyProof, inclusionProof, merkleLeafHash, merkleRoot } from './merkle';
import {
  ANONYMIZED_PREFIX,
  commitIdentifiers,
  commitmentOf,
  committedEntry,
  computeRecordHash,
  PERSONAL_IDENTIFIER_PATHS,
  valueAt,
} from './records';
import { verifyTenant } from './verify';

export interface AuditLogOptions {
  store: AuditStore;
  /** Holds the commitment master key and the checkpoint signing key. */
  secrets: SecretStore;
  clock?: Clock;
  /**
   * Secret ref of the HMAC master key; per-tenant keys are derived from it with
   * HKDF-SHA256(info = tenantId). Default 'audit-commitment-key'.
   */
  commitmentKeyRef?: string;
  /** Secret ref of the checkpoint signing key (an Ed25519 or P-256 private JWK as JSON). Default 'audit-signing-key'. */
  signingKeyRef?: string;
  /** Identifier paths to commit (default PERSONAL_IDENTIFIER_PATHS; `userId` is always added). */
  identifierPaths?: readonly string[];
  /** Entry id generator (default: monotonic ULIDs timed by `clock`). */
  ids?: () => string;
}

export interface InclusionProof {
  entryId: string;
  seq: number;
  /** 0-based leaf index (seq − 1). */
  leafIndex: number;
  /** Merkle leaf hash of the record: SHA-256(0x00 || record hash). */
  leafHash: string;
  treeSize: number;
  rootHash: string;
  /** RFC 9162 PATH, hex, leaf to root. */
  proof: string[];
  /** The signed checkpoint of `treeSize`, when there is one. */
  checkpoint?: AuditCheckpoint;
}

export interface ConsistencyProof {
  size1: number;
  size2: number;
  root1: string;
  root2: string;
  /** RFC 9162 PROOF, hex. */
  proof: string[];
}

export interface AuditLog {
  /** Validates (AuditEntryInputSchema; ULID id; timestamp defaults to clock), commits identifiers, hashes, appends. */
  append(input: AuditEntryInput, options?: CallOptions): Promise<Result<AuditEntry, GovernanceError>>;
  /**
   * Many entries in one locked append per tenant (grouped per tenant, order kept). All inputs are
   * validated before anything is written; the append of each tenant is atomic.
   */
  appendBatch(
    inputs: readonly AuditEntryInput[],
    options?: CallOptions,
  ): Promise<Result<AuditEntry[], GovernanceError>>;
  /**
   * Verifies the tenant's chain, then signs and saves a checkpoint over its current head. Returns
   * the existing checkpoint when one of that size exists already.
   */
  checkpoint(tenantId: string, options?: CallOptions): Promise<Result<AuditCheckpoint, GovernanceError>>;
  /** Inclusion proof of one entry in the tree of `treeSize` (default: the latest checkpoint). */
  proveInclusion(
    tenantId: string,
    entryId: string,
    treeSize?: number,
  ): Promise<Result<InclusionProof, GovernanceError>>;
  /** Consistency proof between the trees of `size1` and `size2` records. */
  proveConsistency(
    tenantId: string,
    size1: number,
    size2: number,
  ): Promise<Result<ConsistencyProof, GovernanceError>>;
  /** The public JWK that verifies this log's checkpoints. */
  publicJwk(): Promise<Result<JWK, GovernanceError>>;
  /** The commitment of a clear identifier in a tenant (used for erasure placeholders). */
  commitment(tenantId: string, clearValue: string): Promise<Result<string, GovernanceError>>;
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

type Validated = Omit<AuditEntry, 'id' | 'timestamp'> & { timestamp?: string };

/**
 * An entry validated and hashed as far as it can be before the chain head is known (outside the
 * store's lock): its commitments and the canonical JSON of everything but `id`, `timestamp`,
 * `seq` and `prevHash`. `build(head)` only concatenates and hashes once (see `preparedHash`).
 */
interface Prepared {
  entry: Validated;
  commitments: Record<string, string>;
  /** Canonical JSON of `commitments`. */
  commitmentsJson: string;
  /** Canonical JSON of the committed entry up to and including `"id":`. */
  beforeId: string;
  /** From after the id up to and including `"timestamp":`. */
  beforeTimestamp: string;
  /** Canonical JSON string of the given timestamp (undefined: the clock's time at append). */
  timestamp: string | undefined;
  /** From after the timestamp to the end of the entry (`}` included). */
  rest: string;
}

/** Either a prepared entry (fast path) or one hashed the original way under the lock. */
type Pending = { prepared: Prepared; validated?: undefined } | { validated: Validated; prepared?: undefined };

/** The members of an AuditEntry in RFC 8785 order (UTF-16 code units). */
const ENTRY_KEYS_SORTED = [
  'actionDetail',
  'actionType',
  'dataAccessed',
  'dataClassification',
  'id',
  'modelTokens',
  'modelUsed',
  'outcome',
  'policyApplied',
  'policyReason',
  'policyResult',
  'requestId',
  'tenantId',
  'timestamp',
  'userId',
] as const;
const ENTRY_KEY_PREFIX = new Map(ENTRY_KEYS_SORTED.map((k) => [k, `"${k}":`]));

/** A text holding a character the JSON columns refuse (the check of `jsonIssue`, on one string). */
const hasNul = (text: string): boolean => text.includes('\u0000') || text.includes('\\u0000');

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

/** The record hash of a prepared entry: the same bytes `computeRecordHash` hashes. */
function preparedHash(p: Prepared, id: string, timestamp: string, seq: number, prevHash: string): string {
  const idJson = canonicalString(id);
  const prevJson = canonicalString(prevHash);
  if (idJson === undefined || prevJson === undefined) throw new TypeError('value has no JSON representation');
  return sha256Hex(
    `{"commitments":${p.commitmentsJson},"entry":${p.beforeId}${idJson}${p.beforeTimestamp}${
      p.timestamp ?? timestamp
    }${p.rest},"prevHash":${prevJson},"seq":${JSON.stringify(seq)}}`,
  );
}

export function createAuditLog(options: AuditLogOptions): AuditLog {
  const store = options.store;
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? createUlidFactory(clock);
  const commitmentRef = options.commitmentKeyRef ?? DEFAULT_COMMITMENT_KEY_REF;
  const signingRef = options.signingKeyRef ?? DEFAULT_SIGNING_KEY_REF;
  const paths = [...new Set(['userId', ...(options.identifierPaths ?? PERSONAL_IDENTIFIER_PATHS)])];

  let keys: Promise<TenantKeys> | undefined;
  const tenantKeys = (): Promise<TenantKeys> => {
    keys ??= readCommitmentSecret(options.secrets, commitmentRef).then((master) => {
      if (master === undefined) throw new AuditKeyError(commitmentRef, 'missing');
      return new TenantKeys(master);
    });
    // A failed read is not cached: the next call retries (the secret may be configured later).
    keys.catch(() => {
      keys = undefined;
    });
    return keys;
  };
  let signing: Promise<SigningKey> | undefined;
  const signingKey = (): Promise<SigningKey> => {
    signing ??= readSigningKey(options.secrets, signingRef).then((key) => {
      if (!key) throw new AuditKeyError(signingRef, 'missing');
      return key;
    });
    signing.catch(() => {
      signing = undefined;
    });
    return signing;
  };

  const splitPaths = paths.map((path) => ({ path, parts: path.split('.') }));
  const sortedPaths = [...paths].sort().map((path) => ({ path, json: canonicalString(path) }));
  // Commitments of `id` or `timestamp` paths are only known under the lock: no fast path then.
  const fastPath =
    !paths.some((p) => /^(id|timestamp)(\.|$)/.test(p)) && sortedPaths.every((p) => p.json !== undefined);

  /** The original validation (any value zod accepts); also the reference for the fast path. */
  function validateSlow(value: Validated, prefix: string): Result<Validated, ValidationError> {
    const field = (f: string) => (prefix ? `${prefix}.${f}` : f);
    const issue = jsonIssue(value);
    if (issue) return err(ValidationError.invalid(field('actionDetail'), issue));
    const entry = { ...value, actionDetail: JSON.parse(JSON.stringify(value.actionDetail)) } as Validated;
    if (entry.timestamp !== undefined) entry.timestamp = new Date(entry.timestamp).toISOString();
    const reserved = reservedIssues(entry, field);
    if (reserved.length > 0) return err(new ValidationError('invalid_type', reserved));
    return ok(entry);
  }

  function reservedIssues(entry: Validated, field: (f: string) => string): FieldIssue[] {
    const reserved: FieldIssue[] = [];
    for (const { path, parts } of splitPaths) {
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

  /**
   * Fast path, step 1 (synchronous, so the caller's objects are copied at call time, as by
   * `validateSlow`): the entry with a private copy of plain-JSON `actionDetail` and the
   * normalized timestamp. Undefined when the input needs the original path.
   */
  function snapshot(value: Validated): Validated | undefined {
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

  /**
   * Fast path, step 2: the checks of `validateSlow` (same errors) plus the commitments and the
   * canonical JSON, computed once. Undefined when `jsonIssue` would reject the entry: the original
   * path then reports it, with its very message.
   */
  function prepare(
    entry: Validated,
    keys: TenantKeys,
    prefix: string,
  ): Result<Prepared, ValidationError> | undefined {
    let timestamp: string | undefined;
    if (entry.timestamp !== undefined) timestamp = JSON.stringify(entry.timestamp);
    // Commitments (of clear values that must themselves be representable, as jsonIssue requires).
    const commitments: Record<string, string> = {};
    for (const { path, parts } of splitPaths) {
      const v = valueAt(entry, parts);
      if (typeof v !== 'string') continue;
      if (hasNul(v) || canonicalString(v) === undefined) return undefined;
      commitments[path] = keys.commitment(entry.tenantId, v);
    }
    let commitmentsJson = '{';
    for (const { path, json } of sortedPaths) {
      const c = commitments[path];
      if (c === undefined) continue;
      commitmentsJson += `${commitmentsJson.length === 1 ? '' : ','}${json}:"${c}"`;
    }
    commitmentsJson += '}';
    // Canonical JSON of the committed entry, cut around the members only known under the lock.
    const committed = committedEntry(entry as AuditEntry, commitments) as Record<string, unknown>;
    const pieces: string[] = [];
    let piece = '{';
    let first = true;
    for (const k of ENTRY_KEYS_SORTED) {
      if (k === 'id' || k === 'timestamp') {
        pieces.push(`${piece}${first ? '' : ','}"${k}":`);
        piece = '';
        first = false;
        continue;
      }
      const v = committed[k];
      if (v === undefined) continue;
      const text = plainCanonicalJson(v);
      if (text === undefined || hasNul(text)) return undefined;
      piece += `${first ? '' : ','}${ENTRY_KEY_PREFIX.get(k)}${text}`;
      first = false;
    }
    const field = (f: string) => (prefix ? `${prefix}.${f}` : f);
    const reserved = reservedIssues(entry, field);
    if (reserved.length > 0) return err(new ValidationError('invalid_type', reserved));
    return ok({
      entry,
      commitments,
      commitmentsJson,
      beforeId: pieces[0] as string,
      beforeTimestamp: pieces[1] as string,
      timestamp,
      rest: `${piece}}`,
    });
  }

  function builder(entries: readonly Pending[], key: Uint8Array) {
    return (head: ChainHead | undefined): AuditRecord[] => {
      let seq = head?.seq ?? 0;
      let prevHash = head?.hash ?? GENESIS_HASH;
      const now = clock.now().toISOString();
      const nowJson = JSON.stringify(now);
      return entries.map((pending) => {
        const prepared = pending.prepared;
        const validated = prepared ? prepared.entry : (pending.validated as Validated);
        const entry: AuditEntry = {
          id: ids(),
          tenantId: validated.tenantId,
          userId: validated.userId,
          timestamp: validated.timestamp ?? now,
          actionType: validated.actionType,
          actionDetail: validated.actionDetail,
          dataAccessed: validated.dataAccessed,
          modelUsed: validated.modelUsed,
          modelTokens: validated.modelTokens,
          dataClassification: validated.dataClassification,
          policyApplied: validated.policyApplied,
          policyResult: validated.policyResult,
          policyReason: validated.policyReason,
          outcome: validated.outcome,
          requestId: validated.requestId,
        };
        seq += 1;
        const record: AuditRecord = prepared
          ? {
              entry,
              seq,
              prevHash,
              hash: preparedHash(prepared, entry.id, nowJson, seq, prevHash),
              commitments: prepared.commitments,
            }
          : { entry, seq, prevHash, hash: '', commitments: commitIdentifiers(entry, key, paths) };
        if (!prepared) record.hash = computeRecordHash(record);
        prevHash = record.hash;
        return record;
      });
    };
  }

  /**
   * Validates every input in order (the first invalid one is the error) and prepares what does
   * not depend on the chain head; grouped per tenant, with the position of each input. Inputs
   * are parsed and copied before the first `await`, so later changes by the caller do not count.
   */
  async function validateAll(
    inputs: readonly AuditEntryInput[],
    prefixOf: (i: number) => string,
  ): Promise<
    Result<{ groups: Map<string, Pending[]>; order: { tenantId: string; index: number }[] }, ValidationError>
  > {
    // Step 1, synchronous: zod, then a private copy (fast path) or the original validation.
    const staged: ({ fast: Validated } | { validated: Validated })[] = [];
    let firstError: ValidationError | undefined;
    for (const [i, input] of inputs.entries()) {
      const parsed = parseWith(AuditEntryInputSchema, input, prefixOf(i));
      if (parsed.isErr()) {
        firstError = parsed.error;
        break;
      }
      const copy = fastPath ? snapshot(parsed.value as Validated) : undefined;
      if (copy) {
        staged.push({ fast: copy });
        continue;
      }
      const slow = validateSlow(parsed.value as Validated, prefixOf(i));
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
        keys = await tenantKeys();
      } catch (error) {
        keyError = error; // thrown after validation, as before: an invalid input is reported first
      }
    }
    const groups = new Map<string, Pending[]>();
    const order: { tenantId: string; index: number }[] = [];
    for (const [i, stage] of staged.entries()) {
      let pending: Pending;
      if ('fast' in stage) {
        const prepared = keys ? prepare(stage.fast, keys, prefixOf(i)) : undefined;
        if (prepared?.isErr()) return err(prepared.error);
        if (prepared?.isOk()) pending = { prepared: prepared.value };
        else {
          // The copy is plain JSON equal to the input: the original path gives the same result.
          const slow = validateSlow(stage.fast, prefixOf(i));
          if (slow.isErr()) return err(slow.error);
          pending = { validated: slow.value };
        }
      } else pending = stage;
      const tenantId = (pending.prepared?.entry ?? (pending.validated as Validated)).tenantId;
      const group = groups.get(tenantId) ?? [];
      order.push({ tenantId, index: group.length });
      group.push(pending);
      groups.set(tenantId, group);
    }
    if (firstError) return err(firstError);
    if (keyError !== undefined) throw keyError;
    return ok({ groups, order });
  }

  async function appendGroup(
    tenantId: string,
    entries: Pending[],
    callOptions?: CallOptions,
  ): Promise<AuditEntry[]> {
    const key = (await tenantKeys()).get(tenantId);
    const records = await store.append(tenantId, builder(entries, key), callOptions);
    return records.map((r) => r.entry);
  }

  async function hashesUpTo(tenantId: string, size: number): Promise<string[]> {
    const out: string[] = [];
    for await (const r of store.scan(tenantId, { toSeq: size, batchSize: 5000 })) out.push(r.hash);
    return out;
  }

  return {
    append: (input, callOptions) =>
      guardResult(async () => {
        const v = await validateAll([input], () => '');
        if (v.isErr()) return err(v.error);
        const [tenantId, group] = [...v.value.groups][0] as [string, Pending[]];
        const [entry] = await appendGroup(tenantId, group, callOptions);
        return ok(entry as AuditEntry);
      }),

    appendBatch: (inputs, callOptions) =>
      guardResult(async () => {
        const v = await validateAll(inputs, (i) => `${i}`);
        if (v.isErr()) return err(v.error);
        const written = new Map<string, AuditEntry[]>();
        for (const [tenantId, group] of v.value.groups)
          written.set(tenantId, await appendGroup(tenantId, group, callOptions));
        return ok(v.value.order.map(({ tenantId, index }) => written.get(tenantId)?.[index] as AuditEntry));
      }),

    checkpoint: (tenantId, callOptions) =>
      guardResult(async () => {
        const key = await signingKey();
        const head = await store.head(tenantId);
        if (!head)
          return err(ValidationError.invalid('tenantId', 'the tenant has no audit entries to checkpoint'));
        const existing = (await store.checkpoints(tenantId)).find((c) => c.treeSize === head.seq);
        if (existing) return ok(existing);
        const report = await verifyTenant(store, tenantId, {
          secrets: options.secrets,
          commitmentKeyRef: commitmentRef,
          publicJwk: key.publicJwk,
          toSeq: head.seq,
          ...(callOptions?.signal ? { signal: callOptions.signal } : {}),
        });
        if (!report.ok || report.rootHash === undefined) {
          return err(
            new GovernanceError('internal_error', 'refusing to checkpoint a broken audit chain', {
              detail: report.firstBreak ?? report.checkpoints.find((c) => !c.ok),
            }),
          );
        }
        const issuedAt = clock.now().toISOString();
        const checkpoint: AuditCheckpoint = {
          tenantId,
          treeSize: head.seq,
          rootHash: report.rootHash,
          issuedAt,
          jws: await signCheckpoint(key, {
            tenantId,
            treeSize: head.seq,
            rootHash: report.rootHash,
            issuedAt,
          }),
        };
        await store.saveCheckpoint(checkpoint);
        return ok(checkpoint);
      }),

    proveInclusion: (tenantId, entryId, treeSize) =>
      guardResult(async () => {
        const record = await store.get(tenantId, entryId);
        if (!record) return err(new NotFoundError('Audit entry'));
        const checkpoints = await store.checkpoints(tenantId);
        const size = treeSize ?? checkpoints.at(-1)?.treeSize;
        if (size === undefined) return err(ValidationError.invalid('treeSize', 'no checkpoint exists yet'));
        const head = await store.head(tenantId);
        if (!Number.isSafeInteger(size) || size < record.seq || size > (head?.seq ?? 0)) {
          return err(
            ValidationError.invalid('treeSize', `must be between ${record.seq} and ${head?.seq ?? 0}`),
          );
        }
        const hashes = await hashesUpTo(tenantId, size);
        const checkpoint = checkpoints.find((c) => c.treeSize === size);
        return ok({
          entryId,
          seq: record.seq,
          leafIndex: record.seq - 1,
          leafHash: merkleLeafHash(record.hash),
          treeSize: size,
          rootHash: merkleRoot(hashes, size),
          proof: inclusionProof(hashes, record.seq - 1, size),
          ...(checkpoint ? { checkpoint } : {}),
        });
      }),

    proveConsistency: (tenantId, size1, size2) =>
      guardResult(async () => {
        const head = await store.head(tenantId);
        const max = head?.seq ?? 0;
        if (!Number.isSafeInteger(size2) || size2 < 1 || size2 > max) {
          return err(ValidationError.invalid('size2', `must be between 1 and ${max}`));
        }
        if (!Number.isSafeInteger(size1) || size1 < 1 || size1 > size2) {
          return err(ValidationError.invalid('size1', `must be between 1 and ${size2}`));
        }
        const hashes = await hashesUpTo(tenantId, size2);
        return ok({
          size1,
          size2,
          root1: merkleRoot(hashes, size1),
          root2: merkleRoot(hashes, size2),
          proof: consistencyProof(hashes, size1, size2),
        });
      }),

    publicJwk: () => guardResult(async () => ok((await signingKey()).publicJwk)),

    commitment: (tenantId, clearValue) =>
      guardResult(async () => ok(commitmentOf((await tenantKeys()).get(tenantId), clearValue))),
  };
}
