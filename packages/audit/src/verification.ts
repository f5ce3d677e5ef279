/**
 * What every verifier of this package answers (the error convention of docs/architecture.md):
 * `Result<Verified, VerificationError>`, never a throw for anything in its input. A failed
 * verification is a `GovernanceError` (`invalid_type`, 400 if it ever reaches HTTP) whose
 * `reason` is a stable code and whose message says what failed, in words.
 */
import { GovernanceError } from '@agentgov/core';
import type { JWK } from 'jose';

/** Why a verification failed (stable codes; the message has the details). */
export type VerificationReason =
  /** The key given is not a usable public key (wrong type, curve or form). */
  | 'invalid_key'
  /** The signature does not verify with the key, or the signed object is malformed. */
  | 'invalid_signature'
  /** A signed object of another kind (a JWS `typ`, a note body that is not a tlog checkpoint). */
  | 'unexpected_type'
  /** Signed, but the payload is not what it must be. */
  | 'invalid_payload'
  /** A proof's hashes, index or sizes are not a proof. */
  | 'malformed_proof'
  /** A well-formed proof that does not lead to the root(s) given. */
  | 'proof_mismatch';

export class VerificationError extends GovernanceError<'invalid_type'> {
  readonly reason: VerificationReason;
  constructor(reason: VerificationReason, message: string) {
    super('invalid_type', message, { detail: { reason } });
    this.reason = reason;
  }
}

/**
 * A public JWK as the verifiers take it — never a neverthrow `Result` or a promise of one: handing
 * `await log.loadPublicJwk()` (a Result) to `verifyCheckpoint` instead of its value is a compile
 * error, not a failed verification at run time.
 */
export type PublicJwk = JWK & { readonly isOk?: never; readonly isErr?: never; readonly then?: never };
