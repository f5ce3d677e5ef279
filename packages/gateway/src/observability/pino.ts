/**
 * The `Logger` port on pino, without importing pino: `pinoLogger(pino(options))` adapts any
 * object with pino's `(fields, message)` methods, so pino stays the application's dependency.
 * `PINO_REDACT` is a redaction list for pino's `redact` option — a second line of defence behind
 * the kernel's allow-listed fields, for what handlers log themselves.
 */
import type { Logger } from '@agentgov/core';

/** What `pinoLogger` needs of a pino logger (structural: any pino 8–10 instance fits). */
export interface PinoLike {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/**
 * Field paths pino censors (`pino({ redact: { paths: PINO_REDACT } })`): credentials wherever a
 * handler might put them — headers, tokens, cookies, secrets, passwords — at the top level and
 * one level down.
 */
export const PINO_REDACT: readonly string[] = [
  'authorization',
  'cookie',
  'setCookie',
  'token',
  'idToken',
  'accessToken',
  'refreshToken',
  'secret',
  'password',
  'clientSecret',
  'headers.authorization',
  'headers.cookie',
  'headers["set-cookie"]',
  '*.authorization',
  '*.cookie',
  '*.token',
  '*.idToken',
  '*.accessToken',
  '*.refreshToken',
  '*.secret',
  '*.password',
  '*.clientSecret',
];

export function pinoLogger(pino: PinoLike): Logger {
  return {
    debug: (message, fields) => pino.debug(fields ?? {}, message),
    info: (message, fields) => pino.info(fields ?? {}, message),
    warn: (message, fields) => pino.warn(fields ?? {}, message),
    error: (message, fields) => pino.error(fields ?? {}, message),
  };
}
