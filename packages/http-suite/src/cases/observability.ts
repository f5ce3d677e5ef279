/** biome-ignore-all lint/suspicious/noExplicitAny: JSON bodies of a black-box HTTP suite are read without schemas */
/**
 * Observability extensions (issue 15): `/livez` and `/readyz` (public, never rate limited,
 * readiness following the database probe) and the Prometheus plugin's text exposition passing
 * through each adapter untouched (content type, body, the scraper token).
 */
import { prometheusMetrics } from '@agentgov/gateway/observability';
import { describe, expect, it } from 'vitest';
import type { Harness } from '../harness';

export function observabilityCases(h: Harness): void {
  describe('observability: liveness, readiness, Prometheus', () => {
    it('GET /livez and /readyz answer without credentials, never rate limited', async () => {
      for (let i = 0; i < 3; i++) {
        const live = await h.call('/livez');
        expect(live.status).toBe(200);
        expect(live.body).toEqual({ status: 'alive' });
        expect(live.headers.get('ratelimit-limit')).toBeNull();
        const ready = await h.call('/readyz');
        expect(ready.status).toBe(200);
        expect(ready.body).toEqual({ status: 'ready', components: { database: { status: 'healthy' } } });
        expect(ready.headers.get('cache-control')).toBe('no-store');
      }
      h.expectError(await h.call('/livez', { method: 'POST', body: {} }), 405, 'method_not_allowed');
    });

    it('GET /readyz is 503 with the component while the database is away; /livez stays 200', async () => {
      const { server: s, gov: g } = await h.setup({ kernel: { probes: { database: async () => false } } });
      h.extra.push(s);
      try {
        const ready = await h.call('/readyz', { base: s.url });
        expect(ready.status).toBe(503);
        expect(ready.body).toEqual({
          status: 'not_ready',
          components: { database: { status: 'unhealthy' } },
        });
        expect((await h.call('/livez', { base: s.url })).status).toBe(200);
      } finally {
        await g.close();
      }
    });

    it('GET /metrics/prometheus: the text format through the adapter, the scraper token checked', async () => {
      const token = 'http-suite-scraper-token';
      const { server: s, gov: g } = await h.setup({ kernel: { plugins: [prometheusMetrics({ token })] } });
      h.extra.push(s);
      try {
        await h.call('/status', { base: s.url });
        const res = await fetch(`${s.url}/api/v1/metrics/prometheus`, {
          headers: { authorization: `Bearer ${token}` },
        });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
        const text = await res.text();
        expect(text).toMatch(
          /^agentgov_http_requests_total\{route="\/status",method="GET",status="200"\} 1$/m,
        );
        h.expectError(
          await h.call('/metrics/prometheus', {
            base: s.url,
            headers: { authorization: 'Bearer wrong-token-123456' },
          }),
          401,
          'authentication_required',
        );
      } finally {
        await g.close();
      }
    });
  });
}
