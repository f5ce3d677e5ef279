/**
 * A loopback HTTP server speaking the Jira-compatible REST API HttpTrackerClient uses, for tests and
 * the demo: tickets follow DEFAULT_TRACKER_WORKFLOW; faults can be queued (`status` with an
 * optional `Retry-After`, or `hang` — the request is never answered until the server closes).
 * `GET /rest/api/2/search` answers the `assignee = "<account>"` searches of the scheduled pull
 * (JiraAssignedSource) from `issues`, paged by `startAt` / `maxResults`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemoryTracker, TrackerRequestError } from '@agentgov/core';

type TrackerFault = { status: number; retryAfter?: string } | { hang: true };

export interface LoopbackTracker {
  url: string;
  /** The tickets, comments and statuses behind the API. */
  readonly tracker: InMemoryTracker;
  /** Faults answered to the next requests, in order, before normal handling resumes. */
  readonly faults: TrackerFault[];
  /** Every request received: method, path, authorization header. */
  readonly requests: { method: string; path: string; authorization: string | undefined }[];
  /** Issues the search finds (unresolved ones, by assignee). */
  readonly issues: LoopbackIssue[];
  /** The JQL of every search received. */
  readonly searches: string[];
  /** Called when a `hang` fault has parked a request (a test times the attempt out then, not after a real delay). */
  onHang: (() => void) | undefined;
  close(): Promise<void>;
}

interface LoopbackIssue {
  key: string;
  assignee: string;
  summary: string;
  description?: string;
  duedate?: string;
  resolved?: boolean;
}

export async function startLoopbackTracker(options: { token?: string } = {}): Promise<LoopbackTracker> {
  const tracker = new InMemoryTracker();
  const faults: TrackerFault[] = [];
  const requests: LoopbackTracker['requests'] = [];
  const issues: LoopbackIssue[] = [];
  const searches: string[] = [];
  const hung = new Set<http.ServerResponse>();
  const send = (res: http.ServerResponse, status: number, body?: unknown) => {
    res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const path = url.pathname;
      requests.push({ method: req.method ?? '', path, authorization: req.headers.authorization });
      const fault = faults.shift();
      if (fault && 'hang' in fault) {
        hung.add(res);
        loopback.onHang?.();
        return;
      }
      if (fault) {
        res.writeHead(fault.status, fault.retryAfter ? { 'retry-after': fault.retryAfter } : {});
        res.end(JSON.stringify({ errorMessages: [`injected ${fault.status}`] }));
        return;
      }
      if (options.token && req.headers.authorization !== `Bearer ${options.token}`)
        return send(res, 401, { errorMessages: ['unauthorized'] });
      let body: Record<string, unknown> = {};
      try {
        body = chunks.length
          ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>)
          : {};
      } catch {
        return send(res, 400, { errorMessages: ['invalid JSON'] });
      }
      if (path === '/rest/api/2/search' && req.method === 'GET') {
        const jql = url.searchParams.get('jql') ?? '';
        searches.push(jql);
        const who = /^assignee = "((?:[^"\\]|\\.)*)"/.exec(jql)?.[1]?.replace(/\\(.)/g, '$1');
        const found = issues.filter((i) => !i.resolved && i.assignee === who);
        const startAt = Number(url.searchParams.get('startAt') ?? 0);
        const max = Number(url.searchParams.get('maxResults') ?? 50);
        return send(res, 200, {
          startAt,
          maxResults: max,
          total: found.length,
          issues: found.slice(startAt, startAt + max).map((i) => ({
            key: i.key,
            fields: { summary: i.summary, description: i.description ?? null, duedate: i.duedate ?? null },
          })),
        });
      }
      const m = /^\/rest\/api\/2\/issue\/([^/]+)(?:\/(comment|transitions))?$/.exec(path);
      const key = m ? decodeURIComponent(m[1] ?? '') : '';
      const run = async () => {
        if (!m) return send(res, 404, { errorMessages: ['no such endpoint'] });
        if (m[2] === 'comment' && req.method === 'POST') {
          if (typeof body.body !== 'string') return send(res, 400, { errorMessages: ['body required'] });
          return send(res, 201, await tracker.addComment(key, body.body));
        }
        if (m[2] === 'transitions' && req.method === 'GET') {
          const t = tracker.tickets.get(key);
          if (!t) return send(res, 404, { errorMessages: ['Issue does not exist'] });
          const list = t.workflow[t.status] ?? [];
          return send(res, 200, {
            transitions: list.map((x) => ({ id: x.id, name: x.name, to: { name: x.to } })),
          });
        }
        if (m[2] === 'transitions' && req.method === 'POST') {
          const id = (body.transition as { id?: unknown } | undefined)?.id;
          await tracker.transition(key, String(id ?? ''));
          return send(res, 204);
        }
        if (!m[2] && req.method === 'GET') {
          const t = tracker.tickets.get(key);
          if (!t) return send(res, 404, { errorMessages: ['Issue does not exist'] });
          return send(res, 200, { key, fields: { status: { name: t.status } } });
        }
        return send(res, 405, { errorMessages: ['method not allowed'] });
      };
      run().catch((e: unknown) => {
        const status = e instanceof TrackerRequestError ? (e.status ?? 500) : 500;
        send(res, status, { errorMessages: [(e as Error).message] });
      });
    });
  });
  const loopback: LoopbackTracker = {
    url: '',
    tracker,
    faults,
    requests,
    issues,
    searches,
    onHang: undefined,
    close: async () => {
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  loopback.url = `http://127.0.0.1:${port}`;
  return loopback;
}
