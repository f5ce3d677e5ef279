import { AuditExportQueryParams, AuditQueryParams } from '@agentgov/audit';
import type { Governance } from '@agentgov/gateway';
import { startTestIssuer, type TestIssuer } from '@agentgov/gateway/testing';
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestService } from '../src/index';

let idp: TestIssuer;
let gov: Governance;
beforeAll(async () => {
  idp = await startTestIssuer();
  gov = await createTestService(idp);
});
afterAll(async () => {
  await gov.close();
  await idp.close();
});

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

describe('the OpenAPI document of the whole service', () => {
  it('is a valid OpenAPI 3.1 document whose every $ref resolves to a component', async () => {
    const doc = structuredClone(gov.openapi);
    // biome-ignore lint/suspicious/noExplicitAny: swagger-parser's input type is its own OpenAPI union
    await expect(SwaggerParser.validate(doc as any)).resolves.toBeDefined();
    const text = JSON.stringify(gov.openapi);
    const refs = [...text.matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      expect(ref).toMatch(/^#\/components\/schemas\//);
      expect(gov.openapi.components.schemas[ref.slice('#/components/schemas/'.length)], ref).toBeDefined();
    }
    expect(text).not.toContain('#/$defs/');
  });

  it('lists every route the server routes, and nothing else', async () => {
    const documented = new Set<string>();
    for (const [path, ops] of Object.entries(gov.openapi.paths))
      for (const m of Object.keys(ops)) if (METHODS.includes(m)) documented.add(`${m.toUpperCase()} ${path}`);
    const routed = new Set(gov.routes.map(({ route }) => `${route.method} ${gov.basePath}${route.path}`));
    expect([...documented].sort()).toEqual([...routed].sort());
    // …and the running router answers each documented operation (never its "No route" 404 / 405).
    for (const op of documented) {
      const [method, path] = op.split(' ') as [string, string];
      const res = await gov.handle(
        new Request(`http://gw${path.replace(/\{[^}]+\}/g, 'x')}`, {
          method,
          ...(method === 'GET' || method === 'DELETE' ? {} : { body: '{}' }),
        }),
      );
      const body = (await res.json().catch(() => ({}))) as { message?: string };
      expect(res.status, op).not.toBe(405);
      expect(body.message ?? '', op).not.toMatch(/^No route for/);
    }
  });

  it('documents every query parameter GET /audit and GET /audit/export accept', () => {
    const names = (path: string) => {
      const op = gov.openapi.paths[`${gov.basePath}${path}`]?.get as
        | { parameters: { name: string; in: string }[] }
        | undefined;
      return (op?.parameters ?? [])
        .filter((p) => p.in === 'query')
        .map((p) => p.name)
        .sort();
    };
    expect(names('/audit')).toEqual(Object.keys(AuditQueryParams.shape).sort());
    expect(names('/audit')).toEqual(
      expect.arrayContaining(['user_id', 'action_type', 'from', 'to', 'page', 'pageSize']),
    );
    expect(names('/audit/export')).toEqual(Object.keys(AuditExportQueryParams.shape).sort());
    expect(names('/audit/export')).toContain('format');
  });

  it('declares Idempotency-Key and its 409/422 answers on every authenticated write, and on nothing else', () => {
    for (const { route } of gov.routes) {
      const op = gov.openapi.paths[`${gov.basePath}${route.path}`]?.[route.method.toLowerCase()] as {
        parameters: { name: string; in: string }[];
        responses: Record<string, { description: string }>;
      };
      const declared = op.parameters.some((p) => p.in === 'header' && p.name === 'Idempotency-Key');
      const write = route.method !== 'GET' && route.auth !== 'none';
      expect(declared, `${route.method} ${route.path}`).toBe(write);
      if (write) {
        expect(op.responses['409']?.description).toContain('idempotency_key_in_use');
        expect(op.responses['422']?.description).toContain('idempotency_key_reused');
      }
    }
  });
});
