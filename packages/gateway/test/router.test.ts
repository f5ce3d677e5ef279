/**
 * The router: static paths first, then the patterns in order (fewer parameters first) among those
 * that can match the path's first segment — the ones starting with it and the ones starting with a
 * parameter, which any first segment may match.
 */
import { type AnyRoute, defineRoute } from '@agentgov/core';
import { describe, expect, it } from 'vitest';
import { Router } from '../src/router';

const route = (method: 'GET' | 'POST' | 'DELETE', path: string): AnyRoute =>
  defineRoute({
    method,
    path,
    operationId: `${method} ${path}`,
    summary: path,
    auth: 'none',
    responses: { 200: { description: 'ok' } },
    handler: async () => ({ status: 200, body: {} }),
  }) as AnyRoute;

const router = new Router(
  [
    route('GET', '/audit/export'),
    route('GET', '/audit/{id}'),
    route('DELETE', '/audit/{id}'),
    route('GET', '/{tenant}/report'),
    route('POST', '/{tenant}/{kind}'),
    route('GET', '/policies/{id}/history/{n}'),
  ].map((r) => ({ route: r, plugin: 'test' })),
);

const found = (method: string, path: string) => {
  const m = router.match(method, path);
  return m.kind === 'found' ? [m.mounted.route.path, m.params] : m;
};

describe('Router', () => {
  it('matches static paths, then the patterns of the first segment and those starting with a parameter', () => {
    expect(found('GET', '/audit/export')).toEqual(['/audit/export', {}]);
    expect(found('GET', '/audit/a%2Fb')).toEqual(['/audit/{id}', { id: 'a/b' }]);
    // A first segment with patterns of its own still reaches the parameter-first ones.
    expect(found('GET', '/audit/report')).toEqual(['/audit/{id}', { id: 'report' }]);
    expect(found('POST', '/audit/x')).toEqual(['/{tenant}/{kind}', { tenant: 'audit', kind: 'x' }]);
    expect(found('GET', '/policies/report')).toEqual(['/{tenant}/report', { tenant: 'policies' }]);
    expect(found('GET', '/policies/p1/history/2/')).toEqual([
      '/policies/{id}/history/{n}',
      { id: 'p1', n: '2' },
    ]);
    // A first segment no pattern starts with: only the parameter-first patterns.
    expect(found('GET', '/acme/report')).toEqual(['/{tenant}/report', { tenant: 'acme' }]);
    expect(found('POST', '/acme/things')).toEqual(['/{tenant}/{kind}', { tenant: 'acme', kind: 'things' }]);
  });

  it('answers the allowed methods of every pattern the path matches, or not found', () => {
    expect(router.match('PUT', '/audit/x')).toEqual({
      kind: 'method_not_allowed',
      allow: ['GET', 'DELETE', 'HEAD', 'POST'],
    });
    // HEAD is answered by the GET route of the path.
    const get = router.match('GET', '/audit/x');
    expect(get.kind).toBe('found');
    expect(router.match('HEAD', '/audit/x')).toEqual(get);
    expect(router.match('GET', '/nothing/here/at/all')).toEqual({ kind: 'not_found' });
    // Segments match case-sensitively: `/Audit/export` is only the parameter-first POST route's.
    expect(router.match('GET', '/Audit/export')).toEqual({ kind: 'method_not_allowed', allow: ['POST'] });
  });
});
