/**
 * Audit keys: the commitment master key (HMAC, per-tenant keys derived with HKDF) and the
 * checkpoint signing key (Ed25519 by default, ES256 accepted), both read from a SecretStore.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  type AuditStore,
  EnvSecretStore,
  FileSecretStore,
  GovernanceError,
  type SecretStore,
  type WritableSecretStore,
} from '@agentgov/core';
// jose 6 is ESM-only: the CJS build bundles it (tsup.base.ts), so that entry loads under Jest and
// other require()-only runtimes too.
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import { deriveTenantKey, hmacHex } from './crypto';

/** Secret ref of the commitment master key (env store: `AGENTGOV_SECRET_AUDIT_COMMITMENT_KEY`). */
export const DEFAULT_COMMITMENT_KEY_REF = 'audit-commitment-key';
/** Secret ref of the checkpoint signing key (env store: `AGENTGOV_SECRET_AUDIT_SIGNING_KEY`). */
export const DEFAULT_SIGNING_KEY_REF = 'audit-signing-key';
/** A commitment master key shorter than this is refused (it would be guessable). */
export const MIN_COMMITMENT_KEY_LENGTH = 32;

export type CheckpointAlg = 'EdDSA' | 'ES256';

/**
 * A required audit key is missing or unusable. Appends and checkpoints fail with it instead of
 * writing entries nobody could verify later (status 500: a server misconfiguration).
 */
export class AuditKeyError extends GovernanceError<'internal_error'> {
  readonly ref: string;
  constructor(ref: string, problem: 'missing' | 'invalid', reason?: string) {
    super(
      'internal_error',
      problem === 'missing'
        ? `audit key '${ref}' is not configured (set ${EnvSecretStore.variableName(ref)}; see generateAuditKeys())${reason ? `: ${reason}` : ''}`
        : `audit key '${ref}' is invalid: ${reason ?? 'unusable value'}`,
      { detail: { ref, variable: EnvSecretStore.variableName(ref), problem } },
    );
    this.ref = ref;
  }
}

/** Reads the commitment master key; undefined when absent, AuditKeyError when too short. */
export async function readCommitmentSecret(secrets: SecretStore, ref: string): Promise<string | undefined> {
  const value = await secrets.get(ref);
  if (value === undefined) return undefined;
  if (value.length < MIN_COMMITMENT_KEY_LENGTH) {
    throw new AuditKeyError(ref, 'invalid', `at least ${MIN_COMMITMENT_KEY_LENGTH} characters are required`);
  }
  return value;
}

/** Commitments remembered by one TenantKeys, over all its tenants (then the memo starts afresh). */
const COMMITMENT_MEMO_SIZE = 20_000;

/**
 * Caches the per-tenant commitment keys derived from one master secret, and the commitments of
 * the identifiers seen recently (the same users recur in most entries; an HMAC costs ~1.5 µs).
 */
export class TenantKeys {
  readonly #master: string;
  readonly #keys = new Map<string, Uint8Array>();
  readonly #memo = new Map<string, Map<string, string>>();
  #memoSize = 0;
  constructor(master: string) {
    this.#master = master;
  }
  get(tenantId: string): Uint8Array {
    let key = this.#keys.get(tenantId);
    if (!key) {
      key = deriveTenantKey(this.#master, tenantId);
      if (this.#keys.size > 10_000) this.#keys.clear();
      this.#keys.set(tenantId, key);
    }
    return key;
  }
  /** HMAC-SHA256(tenant key, clearValue), hex: `commitmentOf(get(tenantId), clearValue)`, memoized. */
  commitment(tenantId: string, clearValue: string): string {
    let memo = this.#memo.get(tenantId);
    let c = memo?.get(clearValue);
    if (c !== undefined) return c;
    c = hmacHex(this.get(tenantId), clearValue);
    if (this.#memoSize >= COMMITMENT_MEMO_SIZE) {
      this.#memo.clear();
      this.#memoSize = 0;
      memo = undefined;
    }
    if (!memo) {
      memo = new Map();
      this.#memo.set(tenantId, memo);
    }
    memo.set(clearValue, c);
    this.#memoSize++;
    return c;
  }
}

export interface SigningKey {
  alg: CheckpointAlg;
  kid: string;
  /** The private key, a node:crypto KeyObject (signs synchronously, for JWS and signed notes). */
  privateKey: KeyObject;
  publicJwk: JWK;
}

function algOf(jwk: JWK): CheckpointAlg | undefined {
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') return 'EdDSA';
  if (jwk.kty === 'EC' && jwk.crv === 'P-256') return 'ES256';
  return undefined;
}

/** The public part of a private JWK (only the members a verifier needs). */
export function publicJwkOf(jwk: JWK): JWK {
  const alg = algOf(jwk);
  const pub: JWK = { kty: jwk.kty, crv: jwk.crv, x: jwk.x };
  if (jwk.kty === 'EC') pub.y = jwk.y;
  if (alg) pub.alg = alg;
  if (jwk.kid) pub.kid = jwk.kid;
  return pub;
}

/** Parses a private signing JWK (JSON text); throws AuditKeyError when unusable. */
export async function parseSigningKeyOrThrow(
  text: string,
  ref = DEFAULT_SIGNING_KEY_REF,
): Promise<SigningKey> {
  let jwk: JWK;
  try {
    jwk = JSON.parse(text) as JWK;
  } catch {
    throw new AuditKeyError(ref, 'invalid', 'not a JSON Web Key');
  }
  const alg = jwk && typeof jwk === 'object' ? algOf(jwk) : undefined;
  if (!alg) throw new AuditKeyError(ref, 'invalid', 'an Ed25519 (OKP) or P-256 (EC) private JWK is required');
  if (typeof jwk.d !== 'string') throw new AuditKeyError(ref, 'invalid', 'the JWK has no private part (d)');
  try {
    const privateKey = createPrivateKey({ key: { ...jwk }, format: 'jwk' });
    const publicJwk = publicJwkOf(jwk);
    const kid = jwk.kid ?? (await jwkThumbprintOf(publicJwk));
    publicJwk.kid = kid;
    return { alg, kid, privateKey, publicJwk };
  } catch (error) {
    throw new AuditKeyError(ref, 'invalid', error instanceof Error ? error.message : String(error));
  }
}

function jwkThumbprintOf(jwk: JWK): Promise<string> {
  return calculateJwkThumbprint(jwk, 'sha256');
}

export async function readSigningKey(secrets: SecretStore, ref: string): Promise<SigningKey | undefined> {
  const text = await secrets.get(ref);
  return text === undefined ? undefined : parseSigningKeyOrThrow(text, ref);
}

export interface AuditKeys {
  /** Value of the commitment master key (43 characters, base64url of 32 random bytes). */
  commitmentKey: string;
  /** Value of the signing key: a private JWK as JSON text. */
  signingKey: string;
  /** The public JWK auditors use with `verifyCheckpoint` (publish it); `AuditLog.loadPublicJwk()` reads the same key. */
  publicJwk: JWK;
  /** The same values as environment variables of the `env` secret store. */
  env: { AGENTGOV_SECRET_AUDIT_COMMITMENT_KEY: string; AGENTGOV_SECRET_AUDIT_SIGNING_KEY: string };
}

/** Generates a fresh commitment key and checkpoint signing key (Ed25519 unless `alg: 'ES256'`). */
export async function generateAuditKeys(options: { alg?: CheckpointAlg } = {}): Promise<AuditKeys> {
  const alg = options.alg ?? 'EdDSA';
  const commitmentKey = Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(32))).toString(
    'base64url',
  );
  const { privateKey } = await generateKeyPair(
    alg,
    alg === 'EdDSA' ? { crv: 'Ed25519', extractable: true } : { extractable: true },
  );
  const jwk = await exportJWK(privateKey);
  jwk.alg = alg;
  jwk.kid = await jwkThumbprintOf(publicJwkOf(jwk));
  const signingKey = JSON.stringify(jwk);
  return {
    commitmentKey,
    signingKey,
    publicJwk: publicJwkOf(jwk),
    env: {
      AGENTGOV_SECRET_AUDIT_COMMITMENT_KEY: commitmentKey,
      AGENTGOV_SECRET_AUDIT_SIGNING_KEY: signingKey,
    },
  };
}

/**
 * Generates and stores whichever audit key is missing in a writable secret store; returns what it
 * created. Pass the audit `store` the keys protect: when it already holds records, a missing key
 * is an AuditKeyError (restore the key) — never a silent new key that would make the existing log
 * fail verification (`commitment_mismatch`). Keep the keys where the data is kept (the same
 * persistence: `fileKeyStore` beside a PGlite directory, a secret manager beside PostgreSQL).
 */
export async function ensureAuditKeysOrThrow(
  secrets: WritableSecretStore,
  refs: { commitmentKeyRef?: string; signingKeyRef?: string; store?: AuditStore } = {},
): Promise<{ created: string[] }> {
  const commitmentRef = refs.commitmentKeyRef ?? DEFAULT_COMMITMENT_KEY_REF;
  const signingRef = refs.signingKeyRef ?? DEFAULT_SIGNING_KEY_REF;
  const missing: string[] = [];
  for (const ref of [commitmentRef, signingRef])
    if ((await secrets.get(ref)) === undefined) missing.push(ref);
  if (missing.length === 0) return { created: [] };
  const records = refs.store ? await refs.store.count() : 0;
  if (records > 0) {
    throw new AuditKeyError(
      missing[0] as string,
      'missing',
      `the audit log already holds ${records} record(s); restore the key it was written with (a new key would make the whole log fail verification)`,
    );
  }
  const fresh = await generateAuditKeys();
  const created: string[] = [];
  if (missing.includes(commitmentRef)) {
    await secrets.set(commitmentRef, fresh.commitmentKey);
    created.push(commitmentRef);
  }
  if (missing.includes(signingRef)) {
    await secrets.set(signingRef, fresh.signingKey);
    created.push(signingRef);
  }
  return { created };
}

/**
 * A writable secret store of one file per key in `directory` (created with mode 0700, files 0600,
 * written atomically): the audit keys of a local deployment, kept beside the data they protect.
 * Reads as `FileSecretStore` does.
 */
export function fileKeyStore(directory: string): WritableSecretStore {
  const dir = resolve(directory);
  const reader = new FileSecretStore(dir);
  return {
    get: (ref) => reader.get(ref),
    async set(ref, value) {
      if (!FileSecretStore.isSafeRef(ref)) throw new AuditKeyError(ref, 'invalid', 'not a plain file name');
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const tmp = join(dir, `.${ref}.${process.pid}.tmp`);
      await writeFile(tmp, `${value}\n`, { mode: 0o600 });
      await rename(tmp, join(dir, ref));
      // Read back: a store that cannot keep the key must fail now, not at the next start.
      if ((await readFile(join(dir, ref), 'utf8')).trimEnd() !== value) {
        throw new AuditKeyError(ref, 'invalid', `could not be written to ${dir}`);
      }
    },
  };
}
