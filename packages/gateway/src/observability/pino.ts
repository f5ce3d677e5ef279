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

/**
 * A test of whether pino's redaction of `paths` could change a log call's fields: true when some
 * own key of `fields` is a path's first segment, or some path starts with `*` and some field holds
 * an object. When it is false, pino writes the same line with or without `redact`.
 */
export function redactionTest(paths: readonly string[]): (fields: object) => boolean {
  const heads = new Set<string>();
  let anyObject = false;
  for (const path of paths) {
    // The first segment: up to the first `.` or `[` (`headers["set-cookie"]` → `headers`).
    const head = /^[^.[]*/.exec(path)?.[0] ?? path;
    if (head === '*') anyObject = true;
    else heads.add(head);
  }
  return (fields) => {
    for (const key in fields) {
      if (!Object.hasOwn(fields, key)) continue;
      if (heads.has(key)) return true;
      const value = (fields as Record<string, unknown>)[key];
      if (anyObject && typeof value === 'object' && value !== null) return true;
    }
    return false;
  };
}

export interface PinoLoggerOptions {
  /**
   * The same pino logger without `redact` (same level, destination and other options). Calls
   * whose fields no redaction path can reach (`redactionTest(paths)`, e.g. the kernel's request
   * line: flat, allow-listed fields) are written through it, and skip pino's per-call redaction
   * pass; every other call goes through the redacting logger.
   */
  unredacted?: PinoLike;
  /** The redacting logger's paths (default `PINO_REDACT`). */
  paths?: readonly string[];
}

export function pinoLogger(pino: PinoLike, options: PinoLoggerOptions = {}): Logger {
  const { unredacted } = options;
  const needs = redactionTest(options.paths ?? PINO_REDACT);
  const via = (fields: object | undefined): PinoLike =>
    unredacted && (fields === undefined || !needs(fields)) ? unredacted : pino;
  return {
    debug: (message, fields) => via(fields).debug(fields ?? {}, message),
    info: (message, fields) => via(fields).info(fields ?? {}, message),
    warn: (message, fields) => via(fields).warn(fields ?? {}, message),
    error: (message, fields) => via(fields).error(fields ?? {}, message),
  };
}
