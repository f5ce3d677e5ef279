// Building blocks of the input schemas (one module per API area next to this one): the zod schemas
// every method validates its arguments with before sending anything, and from which the public
// parameter types are inferred. Each schema also maps the valid input to the wire's query or body.
import { z } from 'zod';
import { AnalyticsValidationError, type ValidationIssue } from '../errors';
import { type DateInput, formatDateParam, type QueryValue } from '../params';

export type Query = Record<string, QueryValue>;

/** Validates `input` with `schema`; on failure throws {@link AnalyticsValidationError} for `endpoint`. */
export function validate<S extends z.ZodType>(schema: S, input: unknown, endpoint: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new AnalyticsValidationError(endpoint, result.error.issues.map(toIssue), result.error);
}

function toIssue(issue: z.core.$ZodIssue): ValidationIssue {
  if (issue.code === 'unrecognized_keys') {
    const prefix = issue.path.length > 0 ? `${issue.path.join('.')}.` : '';
    return {
      field: `${prefix}${issue.keys[0] ?? '?'}`,
      message: `unknown parameter (${issue.keys.join(', ')})`,
    };
  }
  const field = issue.path.length > 0 ? issue.path.map(String).join('.') : '(arguments)';
  return { field, message: issue.message };
}

/** A string with at least one non-space character, sent as given. */
export const required = z
  .string({ error: 'must be a string' })
  .refine((v) => v.trim() !== '', { message: 'must not be empty' });

/** A path identifier (session id, prompt id): a non-empty string. */
export const pathId = z.strictObject({ id: required });

/** An optional free-text filter; `''` means "no filter" (not sent). */
export const optionalText = z.string({ error: 'must be a string' }).optional();

/** A page size: an integer >= 1 (the server turns negative limits into "no limit"). */
export const limit = z
  .number({ error: 'must be a number' })
  .int({ error: 'must be an integer' })
  .min(1, { error: 'must be >= 1' });
/** An offset: an integer >= 0. */
const offset = z
  .number({ error: 'must be a number' })
  .int({ error: 'must be an integer' })
  .min(0, { error: 'must be >= 0' });

export const pageShape = { limit: limit.optional(), offset: offset.optional() };

function dateBound(bound: 'from' | 'to') {
  return z
    .union([z.date(), z.string()], { error: 'must be a Date, YYYY-MM-DD or an RFC 3339 timestamp' })
    .transform((value: DateInput, ctx) => {
      try {
        return formatDateParam(value, bound);
      } catch (e) {
        ctx.issues.push({ code: 'custom', message: (e as Error).message, input: value });
        return z.NEVER;
      }
    });
}

/** `from`/`to`, sent as the server compares them (see {@link formatDateParam}). */
export const dateRangeShape = { from: dateBound('from').optional(), to: dateBound('to').optional() };

/**
 * `from` must not be after `to`. Compared as sent: the server compares the strings, and the
 * formatted values (UTC `YYYY-MM-DD[THH:MM:SSZ]`) sort in time order.
 */
export function checkRange(value: { from?: string; to?: string }, ctx: z.RefinementCtx): void {
  if (value.from !== undefined && value.to !== undefined && value.from > value.to) {
    ctx.addIssue({
      code: 'custom',
      path: ['to'],
      message: `must not be before from (${value.from} > ${value.to})`,
    });
  }
}

/** The options of the `iterate…()` methods (besides the call options). */
export const iterateShape = {
  pageSize: limit.optional(),
  startOffset: offset.optional(),
};

const pageParams = z.strictObject(pageShape);
/** `limit` (>= 1; the server's default is 50) and `offset` (>= 0). */
export type PageParams = z.input<typeof pageParams>;
/** `from` (inclusive) and `to` (inclusive; a `YYYY-MM-DD` day includes that whole UTC day). */
export type DateRange = z.input<z.ZodObject<typeof dateRangeShape>>;
