/**
 * What every verifier answers (the error convention of docs/architecture.md):
 * `Result<Verified, VerificationError>`, never a throw for anything in its input. A failed
 * verification is a `GovernanceError` (`invalid_type`, 400 if it ever reaches HTTP) whose `reason`
 * is a stable code and whose message says what failed, in words. A verifier with codes of its own
 * (an envelope's `expired`, a caller token's `caller_token_missing`) names them as `R`.
 */
import { GovernanceError } from './errors';

/** Why a verification failed (the common stable codes; the message has the details). */
export type VerificationReason =
  /** The key given is not a usable public key (wrong type, curve or form), or there is none. */
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

export class VerificationError<
  R extends string = VerificationReason,
> extends GovernanceError<'invalid_type'> {
  readonly reason: R;
  constructor(reason: R, message: string) {
    super('invalid_type', message, { detail: { reason } });
    this.reason = reason;
  }
}
