/**
 * `--offline` (or `ANALYTICS_OFFLINE=1`): a Session Analytics server on loopback that answers with
 * the recorded responses of a real one (fixture-client.ts) — the report's paths over HTTP, and the
 * recorded `/ws` frames to each WebSocket client — so the report runs through the same client,
 * HTTP and WebSocket code as against a live server, with no server to install.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { WebSocketServer } from 'ws';
import { FIXTURE_DIR, NOT_FOUND_FIXTURE, REPORT_FIXTURES, recordedResponse } from './fixture-client';

export interface OfflineServer {
  /** Base URL to give the client (`http://127.0.0.1:<port>`). */
  url: string;
  /** The directory the recordings are read from. */
  dir: string;
  close(): Promise<void>;
}

export async function startOfflineServer(
  dir = FIXTURE_DIR,
  routes: Record<string, string> = REPORT_FIXTURES,
): Promise<OfflineServer> {
  const frames = readFileSync(join(dir, 'ws_messages.jsonl'), 'utf8').split('\n').filter(Boolean);
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://offline').pathname;
    const name = (req.method === 'GET' && routes[path]) || NOT_FOUND_FIXTURE;
    const r = recordedResponse(name, dir);
    res.writeHead(r.status, { 'content-type': r.contentType, 'content-length': r.body.length });
    res.end(r.body);
  });
  const sockets = new WebSocketServer({ server, path: '/ws' });
  sockets.on('connection', (socket) => {
    for (const frame of frames) socket.send(frame);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    dir,
    close: async () => {
      for (const client of sockets.clients) client.terminate();
      await new Promise<void>((resolve) => sockets.close(() => resolve()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
