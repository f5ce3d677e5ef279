// Input schemas of the client's and each call's options: the retry policy (whose type is inferred
// from here), timeouts, headers, the abort signal and the base URL. Checked when the client is made
// and before each request.
import { z } from 'zod';

const ms = z.number({ error: 'must be a number of milliseconds' }).min(0, { error: 'must be >= 0' });
const count = z
  .number({ error: 'must be a number' })
  .int({ error: 'must be an integer' })
  .min(0, { error: 'must be >= 0' });

const retryOptions = z.strictObject({
  /** Retries after the first attempt. Default 2; 0 disables retries. */
  retries: count.optional(),
  /** Delay before the first retry (before jitter). Default 250 ms. */
  minDelayMs: ms.optional(),
  /** Cap on any single backoff delay. Default 5000 ms. */
  maxDelayMs: ms.optional(),
  /** Growth per attempt. Default 2. */
  factor: z.number({ error: 'must be a number' }).min(1, { error: 'must be >= 1' }).optional(),
  /** `'full'` (default): a uniform delay in [0, backoff]; `'none'`: exactly the backoff. */
  jitter: z.enum(['full', 'none'], { error: "must be 'full' or 'none'" }).optional(),
  /**
   * Total time for the whole call (every attempt and every wait), from its start. Default 60 000 ms;
   * 0 = no deadline. Each attempt's timeout is shortened to what is left, and a retry whose wait
   * would end after the deadline is not made (the last error is thrown at once).
   */
  deadlineMs: ms.optional(),
  /** The longest `Retry-After` honoured; a longer one fails at once (with `retryAfterMs` set). Default 60 000 ms. */
  maxRetryAfterMs: ms.optional(),
  /**
   * Also retry POST and PATCH. Default `false`: a POST that timed out may have been applied (a
   * second budget, a second git sync), so only opt in where a duplicate is harmless.
   */
  nonIdempotent: z.boolean({ error: 'must be a boolean' }).optional(),
});

/**
 * Header names and values as `fetch` takes them (a token, a value without CR/LF/NUL or characters
 * beyond U+00FF, such as the `…` of a placeholder), so that `new Headers` cannot throw mid-call.
 */
const headers = z
  .record(z.string(), z.string({ error: 'header values must be strings' }))
  .superRefine((record, ctx) => {
    for (const [name, value] of Object.entries(record)) {
      try {
        new Headers([[name, value]]);
      } catch {
        ctx.addIssue({ code: 'custom', path: [name], message: 'not a valid HTTP header name and value' });
      }
    }
  });

/** The transport options shared by the client and each call (other keys are left to their owners). */
const transportOptions = z
  .object({
    timeoutMs: ms.optional(),
    // `false` (no retries) or the options; checked as the options so that issues name the field.
    retry: z.preprocess((v) => (v === false ? undefined : v), retryOptions.optional()),
    headers: headers.optional(),
  })
  .loose();

/** Anything with the `AbortSignal` members the client uses (also a polyfill's or another realm's). */
const signal = z.custom<AbortSignal>(
  (v) =>
    typeof v === 'object' &&
    v !== null &&
    typeof (v as AbortSignal).aborted === 'boolean' &&
    typeof (v as AbortSignal).addEventListener === 'function' &&
    typeof (v as AbortSignal).removeEventListener === 'function',
  { error: 'must be an AbortSignal' },
);

/** Each call's options: the transport options and the abort signal (`null` = none, as in `fetch`). */
export const callOptions = transportOptions.extend({ signal: signal.nullish() });

/**
 * The base URL: absolute, and without credentials. `fetch` refuses a URL with `user:password@` (and
 * its error would quote them), so they are refused when the client is made; send them in `headers`.
 * The value is not quoted in the issue.
 */
const baseUrl = z.union([z.string(), z.instanceof(URL)], { error: 'must be a URL' }).transform((v, ctx) => {
  let url: URL;
  try {
    url = new URL(String(v));
  } catch {
    ctx.issues.push({ code: 'custom', message: 'must be an absolute URL', input: '' });
    return z.NEVER;
  }
  if (url.username !== '' || url.password !== '') {
    ctx.issues.push({
      code: 'custom',
      message: 'must not contain credentials (user:password@); send them in headers, e.g. authorization',
      input: '',
    });
    return z.NEVER;
  }
  return url;
});

/** The client's own options (checked when it is made): the transport options and the base URL. */
export const clientOptions = transportOptions.extend({ baseUrl: baseUrl.optional() });

/** Retry policy: which failures, which methods, how long to wait. See the fields. */
export type RetryOptions = z.input<typeof retryOptions>;
