/**
 * Signed tree heads ("checkpoints"): a compact JWS whose payload names the tenant, the tree size
 * and the Merkle root over the first `treeSize` record hashes.
 *
 * Header:  { alg: 'EdDSA' | 'ES256', kid: <JWK thumbprint>, typ: 'agentgov-checkpoint+json' }
 * Payload: { v: 1, tenantId, treeSize, rootHash, issuedAt }  (canonical JSON)
 */
import { CompactSign, type CompactVerifyResult, compactVerify, importJWK, type JWK } from 'jose';
import { err, ok, type Result } from 'neverthrow';
import { z } from 'zod';
import { canonicalJson } from './crypto';
import type { SigningKey } from './keys';
import { type PublicJwk, VerificationError } from './verification';

export const CHECKPOINT_TYP = 'agentgov-checkpoint+json';

export const CheckpointPayloadSchema = z.strictObject({
  v: z.literal(1),
  tenantId: z.string().min(1),
  treeSize: z.number().int().min(0),
  rootHash: z.string().regex(/^[0-9a-f]{64}$/),
  issuedAt: z.iso.datetime({ offset: true }),
});
export type CheckpointPayload = z.infer<typeof CheckpointPayloadSchema>;

export async function signCheckpoint(key: SigningKey, head: Omit<CheckpointPayload, 'v'>): Promise<string> {
  const payload: CheckpointPayload = { v: 1, ...head };
  return new CompactSign(new TextEncoder().encode(canonicalJson(payload)))
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: CHECKPOINT_TYP })
    .sign(key.privateKey);
}

/** @deprecated The error of `verifyCheckpoint` is a `VerificationError` (`reason` is now a code). */
export type CheckpointVerificationError = VerificationError;

/**
 * Verifies a checkpoint JWS with the public JWK (object or JSON text) and returns its payload.
 * Checks the signature, the algorithm (EdDSA for OKP/Ed25519, ES256 for EC/P-256), `typ` and
 * the payload shape. It does not know the log: compare `rootHash` with a recomputed root, or
 * use inclusion/consistency proofs. Never throws: a failure is a `VerificationError` (`reason`
 * `invalid_key`, `invalid_signature`, `unexpected_type` or `invalid_payload`).
 */
export async function verifyCheckpoint(
  jws: string,
  publicJwk: PublicJwk | string,
): Promise<Result<CheckpointPayload, VerificationError>> {
  let jwk: JWK;
  try {
    jwk = typeof publicJwk === 'string' ? (JSON.parse(publicJwk) as JWK) : publicJwk;
  } catch {
    return err(new VerificationError('invalid_key', 'the public key is not a JSON Web Key'));
  }
  const alg =
    jwk && typeof jwk === 'object' && jwk.kty === 'OKP' && jwk.crv === 'Ed25519'
      ? 'EdDSA'
      : jwk && typeof jwk === 'object' && jwk.kty === 'EC' && jwk.crv === 'P-256'
        ? 'ES256'
        : undefined;
  if (!alg) {
    return err(
      new VerificationError('invalid_key', 'the public key must be an Ed25519 (OKP) or P-256 (EC) JWK'),
    );
  }
  const { d: _private, ...pub } = jwk;
  let verified: CompactVerifyResult;
  try {
    const key = await importJWK(pub, alg);
    verified = await compactVerify(jws, key, { algorithms: [alg] });
  } catch (error) {
    return err(
      new VerificationError(
        'invalid_signature',
        `signature invalid: ${error instanceof Error ? error.message : String(error)}`,
      ),
    );
  }
  if (verified.protectedHeader.typ !== CHECKPOINT_TYP) {
    return err(
      new VerificationError('unexpected_type', `unexpected typ ${String(verified.protectedHeader.typ)}`),
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(verified.payload));
  } catch {
    return err(new VerificationError('invalid_payload', 'payload is not JSON'));
  }
  const parsed = CheckpointPayloadSchema.safeParse(json);
  if (!parsed.success) {
    return err(
      new VerificationError('invalid_payload', `payload invalid: ${parsed.error.issues[0]?.message ?? ''}`),
    );
  }
  return ok(parsed.data);
}
