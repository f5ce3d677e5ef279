/**
 * The reference server's log on stdout (main.ts): the lines of one turn of the event loop go out
 * in one write, so a real process is checked here — every request's line arrives whole (one JSON
 * document per line, none split or merged), and the lines still pending when the server stops
 * are written before it exits.
 */
import { describe, expect, it } from 'vitest';
import { startProcess } from './server-process';

const cleanEnv = {
  REDIS_URL: '',
  OPA_URL: '',
  OIDC_ISSUER: '',
  AGENTGOV_DATA_DIR: '',
  AGENTGOV_LOG_LEVEL: '',
};

describe('log lines on stdout (a real process)', () => {
  it('writes one whole JSON line per request, also for requests answered just before SIGTERM', async () => {
    const server = await startProcess({ ...cleanEnv, DATABASE_URL: 'memory:', PORT: '0' });
    try {
      // Many requests at once (their lines share writes), then one answered right before the stop.
      const ids = Array.from({ length: 40 }, (_, i) => `req-burst-${i}`);
      await Promise.all(
        ids.map(async (id) => {
          const res = await fetch(`${server.url}/api/v1/livez`, { headers: { 'x-request-id': id } });
          expect(res.status).toBe(200);
        }),
      );
      const last = await fetch(`${server.url}/api/v1/livez`, { headers: { 'x-request-id': 'req-last' } });
      expect(last.status).toBe(200);
    } finally {
      await server.stop();
    }
    expect(server.child.exitCode).toBe(0);
    const records = server
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const requests = records.filter((r) => r.msg === 'request');
    for (const id of ['req-last', 'req-burst-0', 'req-burst-39'])
      expect(
        requests.filter((r) => r.requestId === id),
        id,
      ).toHaveLength(1);
    expect(new Set(requests.map((r) => r.requestId)).size).toBe(requests.length);
    expect(requests.filter((r) => String(r.requestId).startsWith('req-burst-'))).toHaveLength(40);
  }, 60_000);
});
