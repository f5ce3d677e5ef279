/**
 * Matching of method + path against the route table, compiled once at start-up: static paths are
 * one map lookup; parameterised paths are tried in order, static segments first
 * (`/audit/export` before `/audit/{id}`) — only those that can match the path's first segment
 * (the patterns starting with that segment, and those starting with a parameter). A path with
 * a GET route answers HEAD with it (the pipeline sends no body).
 */
import type { AnyRoute, HttpMethod } from '@agentgov/core';

/** A route and the plugin that brought it. */
export interface MountedRoute {
  route: AnyRoute;
  plugin: string;
}

export type MatchResult =
  | { kind: 'found'; mounted: MountedRoute; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allow: HttpMethod[] }
  | { kind: 'not_found' };

interface PatternRoute {
  regex: RegExp;
  names: string[];
  byMethod: Map<string, MountedRoute>;
  /** Its static first segment, or '' when the first segment is a parameter. */
  first: string;
}

const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;

export class Router {
  readonly #static = new Map<string, Map<string, MountedRoute>>();
  /** The patterns in matching order, by the static first segment they start with. */
  readonly #byFirst = new Map<string, PatternRoute[]>();
  /** The patterns that start with a parameter (any first segment); the only ones for a segment not in `#byFirst`. */
  readonly #anyFirst: PatternRoute[];

  constructor(routes: readonly MountedRoute[]) {
    const patterns = new Map<string, PatternRoute>();
    for (const mounted of routes) {
      const { method, path } = mounted.route;
      const names: string[] = [];
      const source = path
        .split('/')
        .map((seg) => {
          const m = /^\{(\w+)\}$/.exec(seg);
          if (!m) return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          names.push(m[1]!);
          return '([^/]+)';
        })
        .join('/');
      let byMethod: Map<string, MountedRoute>;
      if (names.length === 0) {
        const key = path.replace(/\/$/, '') || '/';
        byMethod = this.#static.get(key) ?? new Map();
        this.#static.set(key, byMethod);
      } else {
        let p = patterns.get(source);
        if (!p) {
          const first = path.split('/')[1] ?? '';
          p = {
            regex: new RegExp(`^${source}/?$`),
            names,
            byMethod: new Map(),
            first: /^\{\w+\}$/.test(first) ? '' : first,
          };
          patterns.set(source, p);
        }
        byMethod = p.byMethod;
      }
      if (byMethod.has(method)) throw new Error(`duplicate route ${method} ${path}`);
      byMethod.set(method, mounted);
    }
    // HEAD wherever GET is (RFC 9110 9.3.2): the GET route answers, the pipeline drops the body.
    for (const byMethod of [...this.#static.values(), ...[...patterns.values()].map((p) => p.byMethod)]) {
      const get = byMethod.get('GET');
      if (get && !byMethod.has('HEAD')) byMethod.set('HEAD', get);
    }
    const ordered = [...patterns.values()].sort((a, b) => a.names.length - b.names.length);
    this.#anyFirst = ordered.filter((p) => p.first === '');
    for (const { first } of ordered) {
      if (first !== '' && !this.#byFirst.has(first))
        this.#byFirst.set(
          first,
          ordered.filter((p) => p.first === first || p.first === ''),
        );
    }
  }

  match(method: string, path: string): MatchResult {
    const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const exact = this.#static.get(trimmed);
    if (exact) {
      const mounted = exact.get(method);
      if (mounted) return { kind: 'found', mounted, params: NO_PARAMS };
    }
    // The methods the path allows, gathered only when the method is not one of them.
    let allow: HttpMethod[] | undefined = exact ? ([...exact.keys()] as HttpMethod[]) : undefined;
    // The path's first segment (path starts with '/').
    const end = path.indexOf('/', 1);
    const first = end < 0 ? path.slice(1) : path.slice(1, end);
    for (const p of this.#byFirst.get(first) ?? this.#anyFirst) {
      const m = p.regex.exec(path);
      if (!m) continue;
      const mounted = p.byMethod.get(method);
      if (!mounted) {
        allow ??= [];
        allow.push(...(p.byMethod.keys() as Iterable<HttpMethod>));
        continue;
      }
      const params: Record<string, string> = {};
      for (let i = 0; i < p.names.length; i++) params[p.names[i] as string] = segment(m[i + 1] ?? '');
      return { kind: 'found', mounted, params };
    }
    return allow && allow.length > 0
      ? { kind: 'method_not_allowed', allow: [...new Set(allow)] }
      : { kind: 'not_found' };
  }
}

/** A path segment percent-decoded (kept raw when it does not decode; validation rejects it). */
function segment(raw: string): string {
  if (!raw.includes('%')) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
