/**
 * A matched route's input, as the pipeline (`./pipeline`) hands it to the handler: the path
 * parameters, query and JSON body bounded (`checkInputBounds`) and validated against the route's
 * schemas (the spec's 400 body naming the field), the body read once and bounded. Path parameters
 * whose schema only bounds string lengths (`IdParams`) are checked without zod when they are
 * within bounds (one check per route, made on its first request); a body the route's `exactBody`
 * answers is taken as it is (zod runs for any other). The handler's `request` and
 * `url` are built only when it reads them.
 */
import { type AnyRoute, type RouteInput, ValidationError, validationErrorFromZod } from '@agentgov/core';
import { parseJsonBody } from './http';
import { checkInputBounds } from './input-bounds';
import type { Incoming } from './pipeline';

function validate(schema: AnyRoute['params'], input: unknown): unknown {
  if (!schema) return input;
  const r = schema.safeParse(input);
  if (!r.success) throw validationErrorFromZod(r.error, input, '');
  return r.data;
}

/** A zod schema's definition, as far as `lengthBoundsOf` reads it. */
interface ZodDef {
  type: string;
  shape?: Record<string, { _zod: { def: ZodDef } }>;
  checks?: { _zod: { def: { check: string; minimum?: number; maximum?: number } } }[];
  [other: string]: unknown;
}

/**
 * The length bounds of each member, when `schema` is a `z.object` (unknown keys stripped) of plain
 * strings bounded by length only (`IdParams`) whose members are exactly `names`; otherwise
 * undefined (only zod knows what it checks).
 */
function lengthBoundsOf(schema: unknown, names: readonly string[]): [string, number, number][] | undefined {
  const def = (schema as { _zod?: { def?: ZodDef } } | undefined)?._zod?.def;
  if (def?.type !== 'object' || !def.shape || Object.keys(def).some((k) => k !== 'type' && k !== 'shape'))
    return undefined;
  const keys = Object.keys(def.shape);
  if (keys.length !== names.length || !names.every((n) => keys.includes(n))) return undefined;
  const bounds: [string, number, number][] = [];
  for (const key of keys) {
    const field = def.shape[key]?._zod.def;
    if (field?.type !== 'string' || Object.keys(field).some((k) => k !== 'type' && k !== 'checks'))
      return undefined;
    let min = 0;
    let max = Number.POSITIVE_INFINITY;
    for (const c of field.checks ?? []) {
      const { check, minimum, maximum } = c._zod.def;
      if (check === 'min_length' && typeof minimum === 'number') min = Math.max(min, minimum);
      else if (check === 'max_length' && typeof maximum === 'number') max = Math.min(max, maximum);
      else return undefined;
    }
    bounds.push([key, min, max]);
  }
  return bounds;
}

/** A route's parameter names, in its path (`/policies/{id}` → `id`). */
const paramNames = (path: string): string[] => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);

/**
 * The path-parameter check of each route: for a schema `lengthBoundsOf` reads, the router's
 * params (strings, one per name) are what zod would answer when every length is within bounds, so
 * they are taken as they are; any other value, or any other schema, goes to zod (which names the
 * fault, with the same error body).
 */
function paramsCheck(route: AnyRoute): (params: Record<string, string>) => unknown {
  const schema = route.params;
  const bounds = schema ? lengthBoundsOf(schema, paramNames(route.path)) : undefined;
  if (!bounds || bounds.length === 0) return (params) => validate(schema, params);
  // The router makes a new params object for each request: the handler may keep it as zod's copy.
  return (params) => {
    for (const [key, min, max] of bounds) {
      const v = params[key];
      if (typeof v !== 'string' || v.length < min || v.length > max) return validate(schema, params);
    }
    return params;
  };
}

/** Query parameters as an object; a repeated parameter keeps its first value (as core's `queryObject`). */
function queryOf(search: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (search.length > 1) for (const [k, v] of new URLSearchParams(search)) if (!(k in out)) out[k] = v;
  return out;
}

/**
 * A handler's input; `request` and `url` are built only for a handler that reads them (on Node; a
 * Fetch caller's are already there). A class, not an object literal with getters: every such
 * literal gets its own hidden class in the old generation pointing at the request's closures, so
 * each request's objects would survive young-generation GCs and be promoted (scavenges ~10× slower).
 */
export class HandlerInput implements RouteInput {
  readonly #incoming: Incoming;

  constructor(
    incoming: Incoming,
    readonly params: unknown,
    readonly query: unknown,
    readonly body: unknown,
    readonly rawBody: Uint8Array | undefined,
  ) {
    this.#incoming = incoming;
  }

  get request(): Request {
    return this.#incoming.fetchRequest();
  }

  get url(): URL {
    return this.#incoming.url();
  }
}

/**
 * Reads the input of a route matched with `routeParams` and the target's `search`: params, query
 * and (for a route with a body schema) the body, up to `bodyLimit` bytes, in that order — its
 * bytes checked by the route's `beforeParse`, if any, before they are parsed. Answered at once (no
 * promise, no microtask) for a route without a body.
 */
export function createInputReader(
  bodyLimit: number,
): (
  incoming: Incoming,
  route: AnyRoute,
  routeParams: Record<string, string>,
  search: string,
) => HandlerInput | Promise<HandlerInput> {
  /** Each route's path-parameter check (`paramsCheck`), made on its first request. */
  const paramsChecks = new Map<AnyRoute, (params: Record<string, string>) => unknown>();
  return (incoming, route, routeParams, search) => {
    checkInputBounds(routeParams, '(path)');
    const rawQuery = queryOf(search);
    checkInputBounds(rawQuery, '(query)');
    let check = paramsChecks.get(route);
    if (!check) {
      check = paramsCheck(route);
      paramsChecks.set(route, check);
    }
    const params = check(routeParams);
    const query = validate(route.query, rawQuery);
    const bodySchema = route.body;
    if (!bodySchema) return new HandlerInput(incoming, params, query, undefined, undefined);
    const parse = (rawBody: Uint8Array): HandlerInput => {
      const raw = parseJsonBody(rawBody);
      checkInputBounds(raw, '(body)');
      if (raw !== undefined && (raw === null || typeof raw !== 'object' || Array.isArray(raw))) {
        throw ValidationError.invalid('(body)', 'the body must be a JSON object');
      }
      // A route's exact check answers the body as it is (no zod run, no copy); else zod decides.
      const exact = raw === undefined ? undefined : route.exactBody?.(raw);
      const body = exact !== undefined ? exact : validate(bodySchema, raw ?? undefined);
      return new HandlerInput(incoming, params, query, body, rawBody);
    };
    const before = route.beforeParse;
    if (!before) return incoming.readBody(bodyLimit).then(parse);
    // The route's checks of the bytes first (a signature, the content type): only then parsed.
    return incoming.readBody(bodyLimit).then(async (rawBody) => {
      await before(rawBody, { request: incoming.fetchRequest(), query });
      return parse(rawBody);
    });
  };
}
