/**
 * A real HTTP server on 127.0.0.1 (random port) for transport tests: each request is recorded and
 * answered by the next scripted handler (the last one repeats). Requests go through the real
 * `fetch`, so headers, bodies, status codes and dropped connections are the genuine article.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AnalyticsClient, type AnalyticsClientOptions } from '../src';

interface SeenRequest {
  method: string;
  url: URL;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Handler = (req: SeenRequest, res: ServerResponse) => void;

export interface Loopback {
  baseUrl: string;
  seen: SeenRequest[];
  /** Waits between retries requested by the client (the injected sleep returns at once). */
  sleeps: number[];
  client: (options?: AnalyticsClientOptions) => AnalyticsClient;
  close: () => Promise<void>;
}

/** Answers with a JSON body. */
export const reply =
  (status: number, body: unknown, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

/** Drops the connection without an answer (a network error for the client). */
export const hangUp: Handler = (_req, res) => {
  res.socket?.destroy();
};

export async function startLoopback(...handlers: Handler[]): Promise<Loopback> {
  const seen: SeenRequest[] = [];
  const open = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const record: SeenRequest = {
        method: req.method ?? '',
        url: new URL(req.url ?? '/', 'http://127.0.0.1'),
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      seen.push(record);
      open.add(res);
      res.on('close', () => open.delete(res));
      const handler = handlers[Math.min(seen.length - 1, handlers.length - 1)];
      if (handler) handler(record, res);
      else reply(500, { error: 'no handler' })(record, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  const sleeps: number[] = [];
  return {
    baseUrl,
    seen,
    sleeps,
    client: (options = {}) =>
      new AnalyticsClient({
        baseUrl,
        sleep: async (ms) => {
          sleeps.push(ms);
        },
        random: () => 0.5,
        ...options,
      }),
    close: async () => {
      for (const res of open) res.socket?.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
