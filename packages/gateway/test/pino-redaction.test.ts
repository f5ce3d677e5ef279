/**
 * `pinoLogger(redacting, { unredacted })`: a call whose fields no redaction path can reach is
 * written through the logger without `redact` — and the line is the same as the redacting
 * logger's. Property: for any fields (flat or nested, with credential keys or not) and any level,
 * the split logger writes exactly what the redacting logger alone writes.
 */
import fc from 'fast-check';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { PINO_REDACT, pinoLogger, redactionTest } from '../src/observability/index';

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;

/** A redacting pino, the same without `redact`, and the lines each wrote. */
function loggers() {
  const redacted: string[] = [];
  const plain: string[] = [];
  const options = { level: 'debug', base: undefined, timestamp: false } as const;
  const redacting = pino(
    { ...options, redact: { paths: [...PINO_REDACT] } },
    { write: (l: string) => redacted.push(l) },
  );
  const unredacted = pino(options, { write: (l: string) => plain.push(l) });
  return { redacting, unredacted, redacted, plain };
}

// Keys: the redaction list's names (top level and nested), and others.
const key = fc.oneof(
  fc.constantFrom('authorization', 'cookie', 'token', 'password', 'headers', 'secret', 'clientSecret'),
  fc.constantFrom('requestId', 'route', 'status', 'userId', 'tenantId', 'detail', 'valueOf', 'toString'),
  fc.string({ maxLength: 8 }),
);
const primitive = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
const value = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, primitive, tie('object'), fc.array(primitive, { maxLength: 3 })),
  object: fc.dictionary(key, tie('value'), { maxKeys: 4 }),
})).value;
const fields = fc.oneof(
  fc.dictionary(key, primitive, { maxKeys: 6 }),
  fc.dictionary(key, value, { maxKeys: 5 }),
);

describe('pinoLogger with an unredacted twin', () => {
  it('writes the same lines as the redacting logger alone, for any fields (or throws as it does)', () => {
    /** The lines a call wrote, or what it threw (pino itself throws on a field named `valueOf`). */
    const outcome = (call: () => void, lines: () => string[]) => {
      try {
        call();
        return lines();
      } catch (error) {
        return `threw ${(error as Error).message}`;
      }
    };
    fc.assert(
      fc.property(fields, fc.constantFrom(...LEVELS), fc.string({ maxLength: 10 }), (f, level, msg) => {
        const split = loggers();
        const alone = loggers();
        expect(
          outcome(
            () => pinoLogger(split.redacting, { unredacted: split.unredacted })[level](msg, f),
            () => [...split.redacted, ...split.plain],
          ),
        ).toEqual(
          outcome(
            () => pinoLogger(alone.redacting)[level](msg, f),
            () => alone.redacted,
          ),
        );
      }),
      { numRuns: 500 },
    );
    // The counterexample CI found: a key pino reads as a serializer (Object.prototype's valueOf).
    const split = loggers();
    expect(() =>
      pinoLogger(split.redacting, { unredacted: split.unredacted }).debug('', { valueOf: 0 }),
    ).toThrow(TypeError);
    const alone = loggers();
    expect(() => pinoLogger(alone.redacting).debug('', { valueOf: 0 })).toThrow(TypeError);
  });

  it('sends the kernel’s flat request line through the unredacted logger and credentials through redaction', () => {
    const l = loggers();
    const logger = pinoLogger(l.redacting, { unredacted: l.unredacted });
    logger.info('request', { requestId: 'r1', method: 'GET', route: '/status', status: 200, userId: null });
    expect(l.plain).toHaveLength(1);
    expect(l.redacted).toHaveLength(0);
    logger.info('login', { token: 'tok-9f2c' });
    logger.warn('upstream', { response: { authorization: 'Bearer x' } });
    expect(l.redacted).toHaveLength(2);
    expect(l.redacted.join('\n')).not.toMatch(/tok-9f2c|Bearer x/);
  });

  it('redactionTest: a key named by a path, or any object when a path starts with *', () => {
    const test = redactionTest(['token', 'headers["set-cookie"]', 'a.b']);
    expect(test({ token: 'x' })).toBe(true);
    expect(test({ headers: {} })).toBe(true);
    expect(test({ a: 1 })).toBe(true);
    expect(test({ other: { token: 'x' } })).toBe(false);
    expect(redactionTest(['*.token'])({ other: { x: 1 } })).toBe(true);
    expect(redactionTest(['*.token'])({ other: 'x', n: 1 })).toBe(false);
  });
});
