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
  getPath,
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
import { canonicalJson, GENESIS_HASH } from './crypto';
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
  computeRecordHash,
  PERSONAL_IDENTIFIER_PATHS,
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

  function validate(input: AuditEntryInput, prefix: string): Result<Validated, ValidationError> {
    const parsed = parseWith(AuditEntryInputSchema, input, prefix);
    if (parsed.isErr()) return err(parsed.error);
    const value = parsed.value;
    const field = (f: string) => (prefix ? `${prefix}.${f}` : f);
    const issue = jsonIssue(value);
    if (issue) return err(ValidationError.invalid(field('actionDetail'), issue));
    const entry = { ...value, actionDetail: JSON.parse(JSON.stringify(value.actionDetail)) } as Validated;
    if (entry.timestamp !== undefined) entry.timestamp = new Date(entry.timestamp).toISOString();
    const reserved: FieldIssue[] = [];
    for (const path of paths) {
      const v = getPath(entry, path);
      if (typeof v === 'string' && v.startsWith(ANONYMIZED_PREFIX)) {
        reserved.push({
          field: field(path),
          message: `identifiers may not start with '${ANONYMIZED_PREFIX}'`,
        });
      }
    }
    if (reserved.length > 0) return err(new ValidationError('invalid_type', reserved));
    return ok(entry);
  }

  function builder(entries: readonly Validated[], key: Uint8Array) {
    return (head: ChainHead | undefined): AuditRecord[] => {
      let seq = head?.seq ?? 0;
      let prevHash = head?.hash ?? GENESIS_HASH;
      const now = clock.now().toISOString();
      return entries.map((validated) => {
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
        const record: AuditRecord = {
          entry,
          seq,
          prevHash,
          hash: '',
          commitments: commitIdentifiers(entry, key, paths),
        };
        record.hash = computeRecordHash(record);
        prevHash = record.hash;
        return record;
      });
    };
  }

  async function appendGroup(
    tenantId: string,
    entries: Validated[],
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
        const v = validate(input, '');
        if (v.isErr()) return err(v.error);
        const [entry] = await appendGroup(v.value.tenantId, [v.value], callOptions);
        return ok(entry as AuditEntry);
      }),

    appendBatch: (inputs, callOptions) =>
      guardResult(async () => {
        const groups = new Map<string, Validated[]>();
        const order: { tenantId: string; index: number }[] = [];
        for (const [i, input] of inputs.entries()) {
          const v = validate(input, `${i}`);
          if (v.isErr()) return err(v.error);
          const group = groups.get(v.value.tenantId) ?? [];
          order.push({ tenantId: v.value.tenantId, index: group.length });
          group.push(v.value);
          groups.set(v.value.tenantId, group);
        }
        const written = new Map<string, AuditEntry[]>();
        for (const [tenantId, group] of groups)
          written.set(tenantId, await appendGroup(tenantId, group, callOptions));
        return ok(order.map(({ tenantId, index }) => written.get(tenantId)?.[index] as AuditEntry));
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
