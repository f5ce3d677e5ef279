import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AnalyticsClient, type AnalyticsClientOptions, type FetchLike } from '../src';

/**
 * Recorded responses of the real server (see `fixtures/session-analytics/README.md`), kept in the
 * repository so a fresh clone has them; `SESSION_ANALYTICS_FIXTURES` points at another recording.
 */
export const FIXTURE_DIR =
  process.env.SESSION_ANALYTICS_FIXTURES ?? join(import.meta.dirname, 'fixtures', 'session-analytics');

if (!existsSync(FIXTURE_DIR)) {
  throw new Error(`Fixture directory not found: ${FIXTURE_DIR} (set SESSION_ANALYTICS_FIXTURES)`);
}

export interface Fixture {
  name: string;
  status: number;
  statusText: string;
  headers: [string, string][];
  body: Uint8Array;
}

/** Every `NAME.headers` in the fixture directory. */
export function fixtureNames(): string[] {
  return readdirSync(FIXTURE_DIR)
    .filter((f) => f.endsWith('.headers'))
    .map((f) => f.slice(0, -'.headers'.length))
    .sort();
}

export function loadFixture(name: string): Fixture {
  const lines = readFileSync(join(FIXTURE_DIR, `${name}.headers`), 'utf8')
    .split(/\r?\n/)
    .filter(Boolean);
  const statusLine = lines.shift() ?? '';
  const m = /^HTTP\/[\d.]+ (\d{3}) ?(.*)$/.exec(statusLine);
  if (!m) throw new Error(`Bad status line in ${name}: ${statusLine}`);
  const headers: [string, string][] = [];
  for (const line of lines) {
    const i = line.indexOf(':');
    const key = line.slice(0, i).trim();
    // Transfer-Encoding describes the recording's framing, not the body we replay.
    if (key.toLowerCase() === 'transfer-encoding') continue;
    headers.push([key, line.slice(i + 1).trim()]);
  }
  const body = new Uint8Array(readFileSync(join(FIXTURE_DIR, `${name}.body`)));
  return { name, status: Number(m[1]), statusText: m[2] ?? '', headers, body };
}

export function fixtureText(name: string): string {
  return new TextDecoder().decode(loadFixture(name).body);
}

function toResponse(f: Fixture): Response {
  return new Response(f.body.byteLength === 0 ? null : f.body.slice(), {
    status: f.status,
    statusText: f.statusText,
    headers: f.headers,
  });
}

export interface RecordedRequest {
  method: string;
  url: URL;
  headers: Headers;
  body: string | undefined;
}

/** A fetch that records requests and answers each one with the next responder (the last one repeats). */
export function recordingFetch(
  ...responders: Array<Fixture | ((req: RecordedRequest) => Response | Promise<Response>)>
) {
  const requests: RecordedRequest[] = [];
  const fetch: FetchLike = async (input, init) => {
    const req: RecordedRequest = {
      method: init?.method ?? 'GET',
      url: new URL(String(input)),
      headers: new Headers(init?.headers),
      body: typeof init?.body === 'string' ? init.body : undefined,
    };
    requests.push(req);
    const responder = responders[Math.min(requests.length - 1, responders.length - 1)];
    if (!responder) throw new Error('no responder');
    return typeof responder === 'function' ? responder(req) : toResponse(responder);
  };
  return { fetch, requests };
}

export interface TestClient {
  client: AnalyticsClient;
  requests: RecordedRequest[];
  sleeps: number[];
}

/** A client served by fixtures, with a recording no-op sleep and deterministic jitter. */
export function fixtureClient(
  responders: Array<Fixture | ((req: RecordedRequest) => Response | Promise<Response>)>,
  options: AnalyticsClientOptions = {},
): TestClient {
  const { fetch, requests } = recordingFetch(...responders);
  const sleeps: number[] = [];
  const client = new AnalyticsClient({
    fetch,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    ...options,
  });
  return { client, requests, sleeps };
}

export async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
}
