/**
 * The OpenAPI 3.1 document of the mounted routes, tagged by plugin. Schemas come from zod 4's
 * `z.toJSONSchema`; every schema named with `.meta({ id })` becomes one entry of
 * `components.schemas` and is referenced as `#/components/schemas/<id>` wherever it appears (the
 * input form of a schema whose input and output differ is `<id>Input`).
 */

import { errorSpec, type RateLimit } from '@agentgov/core';
import { z } from 'zod';
import type { MountedRoute } from './router';

export type OpenApiDocument = Record<string, unknown> & {
  openapi: string;
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
};

type Json = Record<string, unknown>;
type Io = 'input' | 'output';

const DEFS_REF = '#/$defs/';
const COMPONENTS_REF = '#/components/schemas/';

const IDEMPOTENT_WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retried write safe: the first answer is stored for 24 h per tenant, user and key and replayed (with `Idempotent-Replayed: true`) for the same request.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};
const IDEMPOTENCY_RESPONSES: [string, string][] = [
  ['409', 'idempotency_key_in_use: a request with this Idempotency-Key is still running'],
  ['422', 'idempotency_key_reused: this Idempotency-Key was used for another request'],
];

/** Collects named schemas into `components.schemas` while converting route schemas. */
class Components {
  readonly schemas: Record<string, unknown> = {};
  readonly #canonical = new Map<string, string>();

  /** A route schema as JSON Schema, its named parts moved to components and referenced. */
  convert(schema: z.ZodType, io: Io): Json {
    const out = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Json;
    delete out.$schema;
    const defs = (out.$defs ?? {}) as Record<string, Json>;
    delete out.$defs;
    // Names of this conversion's $defs in components (input forms that differ get a suffix).
    const names = new Map<string, string>();
    for (const id of Object.keys(defs)) names.set(id, this.#nameFor(id, defs[id]!, io, names));
    const rewrite = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(rewrite);
      if (value === null || typeof value !== 'object') return value;
      const obj: Json = {};
      for (const [k, v] of Object.entries(value as Json)) {
        obj[k] =
          k === '$ref' && typeof v === 'string' && v.startsWith(DEFS_REF)
            ? `${COMPONENTS_REF}${names.get(v.slice(DEFS_REF.length)) ?? v.slice(DEFS_REF.length)}`
            : rewrite(v);
      }
      return obj;
    };
    for (const [id, def] of Object.entries(defs)) {
      const name = names.get(id)!;
      const body = rewrite(def) as Json;
      delete body.id;
      this.schemas[name] ??= body;
    }
    const root = rewrite(out) as Json;
    // A route schema that is itself named: reference it (zod inlines the root and marks it with `id`).
    if (typeof root.id === 'string') {
      const id = root.id;
      delete root.id;
      const name = this.#nameFor(id, root, io, names);
      this.schemas[name] ??= root;
      return { $ref: `${COMPONENTS_REF}${name}` };
    }
    return root;
  }

  #nameFor(id: string, def: Json, io: Io, names: Map<string, string>): string {
    const { id: _ignored, ...body } = def;
    const text = JSON.stringify(body, (k, v) => (k === '$ref' ? String(v).replace(DEFS_REF, '') : v));
    const known = this.#canonical.get(id);
    if (known === undefined || known === text) {
      this.#canonical.set(id, text);
      return id;
    }
    const alt = io === 'input' ? `${id}Input` : `${id}Output`;
    names.set(id, alt);
    return alt;
  }
}

function parametersOf(
  components: Components,
  schema: z.ZodType | undefined,
  where: 'path' | 'query',
): Json[] {
  if (!(schema instanceof z.ZodObject)) return [];
  const json = components.convert(schema, 'input') as { properties?: Json; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || (json.required ?? []).includes(name),
    schema: s,
  }));
}

export function buildOpenApi(
  routes: readonly MountedRoute[],
  options: {
    basePath: string;
    rateLimits: Readonly<Record<string, RateLimit>>;
    title?: string;
    version?: string;
  },
): OpenApiDocument {
  const components = new Components();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { route: r, plugin } of routes) {
    const op: Json = {
      operationId: r.operationId,
      summary: r.summary,
      tags: [plugin],
      parameters: [
        ...parametersOf(components, r.params, 'path'),
        ...parametersOf(components, r.query, 'query'),
      ],
      responses: Object.fromEntries(
        Object.entries(r.responses).map(([status, spec]) => [
          status,
          {
            description: spec.description,
            ...(spec.schema
              ? {
                  content: {
                    [spec.contentType ?? 'application/json']: {
                      schema: components.convert(spec.schema, 'output'),
                    },
                  },
                }
              : {}),
          },
        ]),
      ),
    };
    if (r.auth !== 'none' && IDEMPOTENT_WRITES.has(r.method)) {
      // The kernel's Idempotency-Key handling (./idempotency.ts) covers every authenticated write.
      (op.parameters as Json[]).push(IDEMPOTENCY_KEY_PARAMETER);
      const responses = op.responses as Record<string, Json>;
      for (const [status, description] of IDEMPOTENCY_RESPONSES) {
        const spec = errorSpec(description);
        responses[status] ??= {
          description,
          content: { 'application/json': { schema: components.convert(spec.schema, 'output') } },
        };
        if (responses[status].description !== description)
          responses[status].description = `${responses[status].description}; or ${description}`;
      }
    }
    if (r.body)
      op.requestBody = {
        required: true,
        content: { 'application/json': { schema: components.convert(r.body, 'input') } },
      };
    op.security =
      r.auth === 'none'
        ? []
        : r.auth === 'session'
          ? [{ session: [] }, { bearer: [] }]
          : [{ bearer: [] }, { session: [] }];
    if (r.roles) op['x-roles'] = [...r.roles];
    if (r.rateLimit) op['x-rate-limit'] = { category: r.rateLimit, ...options.rateLimits[r.rateLimit] };
    const path = `${options.basePath}${r.path}`;
    paths[path] ??= {};
    paths[path][r.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: options.title ?? 'agentgov governance service',
      version: options.version ?? '1.0.0',
      description: 'Generated from the gateway route table. Errors use {error, message, detail?}.',
    },
    paths,
    components: {
      schemas: components.schemas,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'OIDC ID token (JWT)' },
        session: { type: 'apiKey', in: 'cookie', name: 'session' },
      },
    },
  };
}
