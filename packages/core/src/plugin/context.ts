/**
 * The one request context: built once per request by the gateway kernel (after authentication)
 * and handed to every route handler, which passes it on to the services it calls. Handlers read
 * what the kernel resolved — tenant, principal, roles, org unit, request id — and never derive
 * them again.
 */
import type { Clock, Role } from '../index';

/** The authenticated caller, from ID-token claims or a session. */
export interface Principal {
  userId: string;
  email: string;
  roles: Role[];
  tenantId: string;
  orgUnit: string | null;
  team: string | null;
  /** How the caller authenticated. */
  via: 'bearer' | 'session';
}

/** Structured logging: a message and optional fields (never a token, cookie or secret). */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** A logger that drops everything (the default of libraries; servers pass their own). */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};

export interface RequestContext {
  /** The request's `X-Request-Id` (the caller's when well-formed, else generated). */
  readonly requestId: string;
  /** Present on every route whose auth mode is not `none`. */
  readonly principal: Principal | undefined;
  /** The caller's tenant (from the principal). */
  readonly tenantId: string | undefined;
  /** The caller's roles (empty when anonymous). */
  readonly roles: readonly Role[];
  /** The caller's org unit, when known. */
  readonly orgUnit: string | null;
  /** Client address as the adapter saw it. */
  readonly remoteAddress: string | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Aborts when the client goes away. */
  readonly signal: AbortSignal;
}

/** The context of a route that requires authentication: the principal and tenant are known. */
export interface AuthenticatedContext extends RequestContext {
  readonly principal: Principal;
  readonly tenantId: string;
}

/** True when the principal holds any of `roles`. */
export function hasRole(principal: Pick<Principal, 'roles'>, ...roles: readonly Role[]): boolean {
  return principal.roles.some((r) => roles.includes(r));
}

/** One class for every request's context (one shape; the signal made on first read). */
class KernelRequestContext implements RequestContext {
  readonly tenantId: string | undefined;
  readonly roles: readonly Role[];
  readonly orgUnit: string | null;
  #signal: AbortSignal | (() => AbortSignal) | undefined;

  constructor(
    readonly requestId: string,
    readonly principal: Principal | undefined,
    readonly remoteAddress: string | undefined,
    readonly clock: Clock,
    readonly logger: Logger,
    signal: AbortSignal | (() => AbortSignal) | undefined,
  ) {
    this.tenantId = principal?.tenantId;
    this.roles = principal?.roles ?? [];
    this.orgUnit = principal?.orgUnit ?? null;
    this.#signal = signal;
  }

  get signal(): AbortSignal {
    const s = this.#signal;
    if (s instanceof AbortSignal) return s;
    const made = typeof s === 'function' ? s() : new AbortController().signal;
    this.#signal = made;
    return made;
  }
}

/**
 * Builds a request context (the kernel does this once per request; tests and in-process callers may too).
 * `signal` may be a function: it is then called when a handler first reads `ctx.signal` (a Node
 * request pays for its AbortController and listener only when something reads it).
 */
export function createRequestContext(init: {
  requestId: string;
  principal?: Principal | undefined;
  remoteAddress?: string | undefined;
  clock: Clock;
  logger?: Logger;
  signal?: AbortSignal | (() => AbortSignal);
}): RequestContext {
  return new KernelRequestContext(
    init.requestId,
    init.principal,
    init.remoteAddress,
    init.clock,
    init.logger ?? silentLogger,
    init.signal,
  );
}
