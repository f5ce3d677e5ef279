/**
 * What every verifier of this package answers (the error convention of docs/architecture.md):
 * `Result<Verified, VerificationError>`, never a throw for anything in its input. A failed
 * verification is a `GovernanceError` (`invalid_type`, 400 if it ever reaches HTTP) whose
 * `reason` is a stable code and whose message says what failed, in words.
 */
import type { JWK } from 'jose';

/** Defined in core (interchange's and work-tracking's verifiers answer it too); re-exported here. */
export { VerificationError, type VerificationReason } from '@agentgov/core';

/**
 * A public JWK as the verifiers take it — never a neverthrow `Result` or a promise of one: handing
 * `await log.loadPublicJwk()` (a Result) to `verifyCheckpoint` instead of its value is a compile
 * error, not a failed verification at run time.
 */
export type PublicJwk = JWK & { readonly isOk?: never; readonly isErr?: never; readonly then?: never };
