/**
 * A tracker outage across a server restart: the merge arrives while the tracker answers 503, the
 * server stops with the write still pending, a new server process on the same database (embedded
 * PGlite directory) delivers it once the tracker is back. Nothing is lost, nothing is doubled.
 */
import { createHmac } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startLoopbackTracker } from '@agentgov/work-tracking/testing';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/src/config';
import { startServer } from '../../server/src/server';

const require = createRequire(import.meta.url);
// biome-ignore lint/suspicious/noExplicitAny: webhook payloads are arbitrary JSON
type Json = Record<string, any>;

describe('the outbox across a restart', () => {
  it('a write that could not be delivered before the restart is delivered after it', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'agentgov-wt-restart-'));
    const tracker = await startLoopbackTracker();
    tracker.tracker.addTicket('ENG-7');
    // The tracker connector's credentials must resolve: a reference that does not sends nothing.
    const env = {
      PORT: '0',
      AGENTGOV_DATA_DIR: dir,
      AGENTGOV_SECRET_CODEHOST_WEBHOOK: 'restart-secret',
      AGENTGOV_SECRET_TRACKER_TOKEN: 'tracker-token-value',
    };
    const start = () => startServer(loadConfig(env), { env, log: () => {} });
    try {
      let server = await start();
      let token = await server.devIssuer?.mintIdToken('alice');
      const call = async (base: string, method: string, p: string, body?: unknown) => {
        const r = await fetch(`${base}/api/v1${p}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            ...(body ? { 'content-type': 'application/json' } : {}),
          },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        return { status: r.status, body: await r.json() };
      };
      expect(
        (
          await call(server.url, 'POST', '/policies', {
            scope: 'enterprise',
            scopeId: 'acme',
            domain: 'integrations',
            name: 'tracker writes',
            version: '1.0.0',
            changeReason: 'test',
            content:
              'actions:\n  tracker_update: { allowed: true, target_systems: [tracker], sources: [work-tracking] }\n',
          })
        ).status,
      ).toBe(201);
      await call(server.url, 'POST', '/connectors', {
        type: 'codehost',
        credentials_secret_ref: 'x',
        config: { webhookSecretRef: 'codehost-webhook' },
      });
      await call(server.url, 'POST', '/connectors', {
        type: 'tracker',
        credentials_secret_ref: 'tracker-token',
        config: { baseUrl: tracker.url, projectKeys: ['ENG'] },
      });

      // The tracker is down (503) for every attempt before the restart.
      for (let i = 0; i < 50; i++) tracker.faults.push({ status: 503 });
      const defs = require('@octokit/webhooks-examples') as {
        name: string;
        examples: Json[];
      }[];
      const p = structuredClone(
        defs.find((d) => d.name === 'pull_request')?.examples.find((e) => e.action === 'closed'),
      ) as Json;
      Object.assign(p.pull_request, {
        merged: true,
        merged_at: p.pull_request.closed_at,
        merged_by: p.sender,
      });
      p.pull_request.head.ref = 'ENG-7-fix';
      const body = JSON.stringify(p);
      const res = await fetch(`${server.url}/api/v1/webhooks/codehost?tenant=acme`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'pull_request',
          'x-github-delivery': 'restart-1',
          'x-hub-signature-256': `sha256=${createHmac('sha256', 'restart-secret').update(body).digest('hex')}`,
        },
        body,
      });
      expect(res.status, await res.clone().text()).toBe(200);
      for (let i = 0; i < 100 && tracker.requests.length === 0; i++)
        await new Promise((r) => setTimeout(r, 20));
      expect(tracker.requests.length).toBeGreaterThan(0);
      const pending = await call(server.url, 'GET', '/work-tracking/writes');
      expect(pending.body.writes.map((w: { state: string; attempts: number }) => w.state)).toEqual([
        'pending',
      ]);
      await server.close();

      // The tracker is back; a new process on the same database delivers the write.
      tracker.faults.length = 0;
      server = await start();
      token = await server.devIssuer?.mintIdToken('alice'); // a new process, a new development issuer
      try {
        for (let i = 0; i < 300 && tracker.tracker.tickets.get('ENG-7')?.comments.length === 0; i++)
          await new Promise((r) => setTimeout(r, 50));
        expect(tracker.tracker.tickets.get('ENG-7')?.comments.map((c) => c.body)).toEqual([
          expect.stringContaining('Codertocat/Hello-World#2'),
        ]);
        const after = await call(server.url, 'GET', '/work-tracking/writes');
        expect(after.body.writes).toMatchObject([{ state: 'delivered', ticketId: 'ENG-7' }]);
        const audit = await call(server.url, 'GET', '/audit?action_type=tool_invocation');
        expect(
          audit.body.entries
            .filter((e: { actionDetail: { tool: string } }) => e.actionDetail.tool === 'tracker_update')
            .map((e: { actionDetail: { outcome: string; ticketId: string } }) => [
              e.actionDetail.ticketId,
              e.actionDetail.outcome,
            ]),
        ).toEqual([['ENG-7', 'success']]);
      } finally {
        await server.close();
      }
    } finally {
      await tracker.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
