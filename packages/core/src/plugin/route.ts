/**
 * Route definitions are data: method, path, roles, rate-limit category and zod schemas. The same
 * table drives routing, validation, role checks, rate limits and the OpenAPI document; a handler
 * receives the validated input and the request context. Fetch types only — no framework types.
 */
import type { z } from 'zod';
import type { Role } from '../index';
import type { AuthenticatedContext, RequestContext } from './context';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * How a route authenticates: `none` (public), `required` (bearer token or session cookie),
 * `session` (the cookie first: no credentials at all → `no_session`).
 */
export type AuthMode = 'none' | 'required' | 'session';

export interface RouteResponseSpec {
  description: string;
  schema?: z.ZodType;
  contentType?: string;
}

/** The validated input of a route. */
export interface RouteInput<P = unknown, Q = unknown, B = unknown> {
  request: Request;
  url: URL;
  params: P;
  query: Q;
  body: B;
  /** The exact body bytes, read once and bounded by the kernel (present when the route has a body). */
  rawBody: Uint8Array | undefined;
}

/** What a handler returns: a full Response, or status + JSON body (+ headers). */
export type RouteResult = Response | { status: number; body: unknown; headers?: HeadersInit };

/** The context a handler gets: authenticated unless the route is public. */
export type ContextFor<A extends AuthMode> = A extends 'none' ? RequestContext : AuthenticatedContext;

export interface RouteDefinition<P = unknown, Q = unknown, B = unknown, A extends AuthMode = AuthMode> {
  method: HttpMethod;
  /** Path below the base path, with `{name}` parameters: `/policies/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  auth: A;
  /** Any of these roles may call the route; absent means any authenticated caller. */
  roles?: readonly Role[];
  /** Rate-limit category (the spec's, or one the plugin declares in `rateLimits`). */
  rateLimit?: string;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  /** JSON body schema; the kernel reads the body once (bounded), parses and validates it. */
  body?: z.ZodType<B>;
  /**
   * Checks of the body's bytes made before the kernel parses them (a route with a `body` only):
   * the signature a webhook's sender made over them, the content type. A throw is the answer (a
   * GovernanceError: its status and body); the bytes are then never parsed, so unsigned or
   * mislabelled input costs no JSON parse and gets the check's answer, not a parse error.
   */
  beforeParse?: (rawBody: Uint8Array, input: { request: Request; query: Q }) => void | Promise<void>;
  /**
   * A fast path of `body` for a hot route: given the parsed JSON (within the input bounds), the
   * value itself when `body` would accept it and hand it back unchanged, else `undefined` — then
   * the kernel runs `body` (which gives the value or the error). It may refuse more than `body`,
   * never accept more (hold it to that with a property test).
   */
  exactBody?: (raw: unknown) => B | undefined;
  responses: Record<number, RouteResponseSpec>;
  handler(input: RouteInput<P, Q, B>, ctx: ContextFor<A>): Promise<RouteResult>;
}

/** A route of any parameter types (a plugin's table is heterogeneous). */
// biome-ignore lint/suspicious/noExplicitAny: the table erases each route's own parameter types
export type AnyRoute = RouteDefinition<any, any, any, any>;

/** Identity helper that infers the parameter, query, body types and the auth mode. */
export function defineRoute<
  P = Record<string, never>,
  Q = Record<string, never>,
  B = undefined,
  A extends AuthMode = AuthMode,
>(route: RouteDefinition<P, Q, B, A>): NoInfer<RouteDefinition<P, Q, B, A>> {
  return route;
}
