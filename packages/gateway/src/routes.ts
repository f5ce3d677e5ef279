/**
 * The route table: every plugin contributes `RouteDefinition`s; the table drives routing, RBAC,
 * rate limiting, validation and the OpenAPI document.
 */
import type { Role } from '@agentgov/core';
import type { z } from 'zod';
import type { Principal } from './auth/principal';
import type { RateLimitCategory } from './rate-limit';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** How a route authenticates: `none` (public), `required` (bearer or session), `session` (cookie first: no credentials → no_session). */
export type AuthMode = 'none' | 'required' | 'session';

export interface RouteResponseSpec {
  description: string;
  schema?: z.ZodType;
  contentType?: string;
}

export interface RouteContext<P = unknown, Q = unknown, B = unknown> {
  request: Request;
  url: URL;
  requestId: string;
  params: P;
  query: Q;
  body: B;
  /** Present on every route whose auth mode is not `none`. */
  principal: Principal | undefined;
  remoteAddress: string | undefined;
  signal: AbortSignal;
}

/** What a handler returns: a full Response, or status + JSON body (+ headers). */
export type RouteResult = Response | { status: number; body: unknown; headers?: HeadersInit };

export interface RouteDefinition<P = unknown, Q = unknown, B = unknown> {
  method: HttpMethod;
  /** Path below the base path, with `{name}` parameters: `/policies/{id}`. */
  path: string;
  plugin: string;
  operationId: string;
  summary: string;
  auth: AuthMode;
  /** Any of these roles may call the route; absent means any authenticated user. */
  roles?: readonly Role[];
  rateLimit?: RateLimitCategory;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  responses: Record<number, RouteResponseSpec>;
  handler(ctx: RouteContext<P, Q, B>): Promise<RouteResult>;
}

/** A route of any parameter types (the table is heterogeneous). */
// biome-ignore lint/suspicious/noExplicitAny: the table erases each route's own parameter types
export type AnyRoute = RouteDefinition<any, any, any>;

/** Identity helper that infers P, Q, B from the schemas. */
export function defineRoute<P = Record<string, never>, Q = Record<string, never>, B = undefined>(
  route: RouteDefinition<P, Q, B>,
): RouteDefinition<P, Q, B> {
  return route;
}

interface CompiledRoute {
  route: AnyRoute;
  regex: RegExp;
  names: string[];
}

export type MatchResult =
  | { kind: 'found'; route: AnyRoute; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allow: HttpMethod[] }
  | { kind: 'not_found' };

export class Router {
  readonly #compiled: CompiledRoute[];
  constructor(routes: readonly AnyRoute[]) {
    const seen = new Set<string>();
    this.#compiled = routes.map((route) => {
      const key = `${route.method} ${route.path}`;
      if (seen.has(key)) throw new Error(`duplicate route ${key}`);
      seen.add(key);
      const names: string[] = [];
      const pattern = route.path
        .split('/')
        .map((seg) => {
          const m = /^\{(\w+)\}$/.exec(seg);
          if (m) {
            names.push(m[1]!);
            return '([^/]+)';
          }
          return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        })
        .join('/');
      return { route, names, regex: new RegExp(`^${pattern}/?$`) };
    });
    // Static segments win over parameters: /audit/export before /audit/{id}.
    this.#compiled.sort((a, b) => a.names.length - b.names.length);
  }
  match(method: string, path: string): MatchResult {
    const allow: HttpMethod[] = [];
    for (const c of this.#compiled) {
      const m = c.regex.exec(path);
      if (!m) continue;
      if (c.route.method !== method) {
        allow.push(c.route.method);
        continue;
      }
      const params: Record<string, string> = {};
      c.names.forEach((n, i) => {
        let v = m[i + 1] ?? '';
        try {
          v = decodeURIComponent(v);
        } catch {
          // keep the raw segment; validation rejects it
        }
        params[n] = v;
      });
      return { kind: 'found', route: c.route, params };
    }
    return allow.length > 0 ? { kind: 'method_not_allowed', allow } : { kind: 'not_found' };
  }
}
