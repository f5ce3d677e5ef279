/** The OpenAPI 3.1 document of the mounted routes (schemas from zod 4's `z.toJSONSchema`), tagged by plugin. */

import type { RateLimit } from '@agentgov/core';
import { z } from 'zod';
import type { MountedRoute } from './router';

export type OpenApiDocument = Record<string, unknown> & {
  openapi: string;
  paths: Record<string, Record<string, unknown>>;
};

function schemaOf(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const out = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Record<
    string,
    unknown
  >;
  delete out.$schema;
  return out;
}

function parametersOf(schema: z.ZodType | undefined, where: 'path' | 'query'): Record<string, unknown>[] {
  if (!(schema instanceof z.ZodObject)) return [];
  const json = schemaOf(schema, 'input') as { properties?: Record<string, unknown>; required?: string[] };
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
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { route: r, plugin } of routes) {
    const op: Record<string, unknown> = {
      operationId: r.operationId,
      summary: r.summary,
      tags: [plugin],
      parameters: [...parametersOf(r.params, 'path'), ...parametersOf(r.query, 'query')],
      responses: Object.fromEntries(
        Object.entries(r.responses).map(([status, spec]) => [
          status,
          {
            description: spec.description,
            ...(spec.schema
              ? {
                  content: {
                    [spec.contentType ?? 'application/json']: { schema: schemaOf(spec.schema, 'output') },
                  },
                }
              : {}),
          },
        ]),
      ),
    };
    if (r.body)
      op.requestBody = {
        required: true,
        content: { 'application/json': { schema: schemaOf(r.body, 'input') } },
      };
    op.security =
      r.auth === 'none'
        ? []
        : r.auth === 'session'
          ? [{ session: [] }, { bearer: [] }]
          : [{ bearer: [] }, { session: [] }];
    const extra: Record<string, unknown> = {};
    if (r.roles) extra['x-roles'] = [...r.roles];
    if (r.rateLimit) extra['x-rate-limit'] = { category: r.rateLimit, ...options.rateLimits[r.rateLimit] };
    Object.assign(op, extra);
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
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'OIDC ID token (JWT)' },
        session: { type: 'apiKey', in: 'cookie', name: 'session' },
      },
    },
  };
}
