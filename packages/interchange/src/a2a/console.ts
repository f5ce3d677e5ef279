/**
 * The A2A SDK writes to `console` (warnings, debug lines of card verification, executor errors).
 * While a governed A2A server runs, console calls made from inside the SDK are routed to our
 * Logger (debug level, with the text) instead of the process's stdout/stderr; other console calls
 * are untouched. Installed on the first server start, removed when the last one closes.
 */
import type { Logger } from '@agentgov/core';

const METHODS = ['log', 'info', 'warn', 'error', 'debug'] as const;
type ConsoleFn = (...a: unknown[]) => void;
interface Routing {
  refs: number;
  originals: Record<(typeof METHODS)[number], ConsoleFn>;
  loggers: Set<Logger>;
}
let installed: Routing | undefined;

const fromSdk = (): boolean => (new Error().stack ?? '').includes('@a2a-js');

export function routeSdkConsole(logger: Logger): () => void {
  if (!installed) {
    const originals = Object.fromEntries(METHODS.map((m) => [m, console[m]])) as Routing['originals'];
    const state: Routing = { refs: 0, originals, loggers: new Set<Logger>() };
    for (const m of METHODS) {
      console[m] = (...args: unknown[]) => {
        if (!fromSdk()) return originals[m].apply(console, args);
        const text = args
          .map((a) => (a instanceof Error ? a.message : typeof a === 'string' ? a : safe(a)))
          .join(' ');
        for (const l of state.loggers) l.debug('a2a-sdk', { level: m, text: text.slice(0, 2000) });
      };
    }
    installed = state;
  }
  const state = installed;
  state.refs++;
  state.loggers.add(logger);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    state.loggers.delete(logger);
    if (--state.refs === 0) {
      for (const m of METHODS) console[m] = state.originals[m];
      installed = undefined;
    }
  };
}

function safe(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}
