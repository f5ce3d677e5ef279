import { err, ok, type Result, ResultAsync } from 'neverthrow';
import type { z } from 'zod';
import { GovernanceError, type ValidationError, validationErrorFromZod } from './errors';

export { err, errAsync, ok, okAsync, Result, ResultAsync } from 'neverthrow';

/** Parses `input` with `schema`; a failure becomes the spec's missing_type / invalid_type error. */
export function parseWith<S extends z.ZodType>(
  schema: S,
  input: unknown,
  prefix = '',
): Result<z.output<S>, ValidationError> {
  const parsed = schema.safeParse(input);
  return parsed.success ? ok(parsed.data) : err(validationErrorFromZod(parsed.error, input, prefix));
}

/** Wraps a thrown error that is not already typed as an `internal_error` GovernanceError. */
export function toGovernanceError(error: unknown): GovernanceError {
  if (error instanceof GovernanceError) return error;
  return new GovernanceError('internal_error', undefined, { cause: error });
}

/**
 * Runs async work that returns a Result; anything it throws becomes `err(GovernanceError)`
 * (`internal_error` unless already typed) — the one place a module boundary turns throws into Results.
 */
export async function guardResult<T, E extends GovernanceError = GovernanceError>(
  work: () => Promise<Result<T, E>>,
): Promise<Result<T, E | GovernanceError>> {
  try {
    return await work();
  } catch (error) {
    return err(toGovernanceError(error));
  }
}

/** Converts a promise at a module edge: thrown errors become typed GovernanceErrors. */
export function fromPromise<T>(promise: Promise<T>): ResultAsync<T, GovernanceError> {
  return ResultAsync.fromPromise(promise, toGovernanceError);
}

/** Returns the value of a Result or throws its (typed) error — for the edges that throw. */
export function unwrapOrThrow<T, E>(result: Result<T, E>): T {
  if (result.isErr()) throw result.error;
  return result.value;
}
