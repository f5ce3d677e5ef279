/**
 * The event stream against a real `ws` server replaying the recorded `/ws` frames.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type WebSocket, WebSocketServer } from 'ws';
import {
  AnalyticsClient,
  type AnalyticsEvent,
  type EventStream,
  HOOK_EVENT_NAMES,
  parseEventFrame,
  type WebSocketConstructor,
  type WebSocketLike,
} from '../src';
import { FIXTURE_DIR } from './helpers';

const FRAMES = readFileSync(join(FIXTURE_DIR, 'ws_messages.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '');

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A ws server on a free port; `onConnection` decides what each new client receives. */
async function server(onConnection: (socket: WebSocket, index: number) => void) {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  let index = 0;
  wss.on('connection', (socket) => onConnection(socket, index++));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate();
        wss.close(() => resolve());
      }),
  );
  const { port } = wss.address() as { port: number };
  return { wss, port, connections: () => index };
}

function open(port: number, options: Parameters<AnalyticsClient['events']>[0] = {}): EventStream {
  const client = new AnalyticsClient({
    baseUrl: `http://127.0.0.1:${port}`,
    fetch: async () => new Response(),
  });
  const stream = client.events({ reconnect: { minDelayMs: 10, maxDelayMs: 40, jitter: false }, ...options });
  cleanups.push(() => stream.close());
  return stream;
}

async function take(stream: EventStream, n: number): Promise<AnalyticsEvent[]> {
  const out: AnalyticsEvent[] = [];
  for await (const e of stream) {
    out.push(e);
    if (out.length === n) break;
  }
  return out;
}

describe('event frames', () => {
  it('maps every recorded frame: hook payloads by hook_event_name, the rest as transcript lines', () => {
    const events = FRAMES.map((f) => parseEventFrame(JSON.parse(f)));
    expect(events.map((e) => (e?.kind === 'hook' ? e.hookEventName : e?.kind))).toEqual([
      'SessionStart',
      'PreToolUse',
      'SubagentStart',
      'SubagentStop',
      'Notification',
      'TaskStart',
      'Stop',
      ...Array(9).fill('transcript'),
    ]);
    const [start, pre, sub, , note, task, stop, firstLine] = events;
    expect(start).toMatchObject({
      source: 'startup',
      transcriptPath: '/home/dev/x.jsonl',
      permissionMode: 'default',
    });
    expect(pre).toMatchObject({ toolName: 'Bash', toolInput: { command: 'ls' }, toolUseId: 'toolu_hook1' });
    expect(sub).toMatchObject({ agentId: 'agent-1', agentType: 'code-reviewer' });
    expect(note).toMatchObject({ message: 'Claude needs your permission' });
    expect(task).toMatchObject({ taskId: 't1' });
    expect(stop).toMatchObject({ stopHookActive: false, extra: {} });
    expect(firstLine).toMatchObject({ kind: 'transcript', type: 'user', uuid: 'u-1', parentUuid: null });
    if (firstLine?.kind !== 'transcript') throw new Error('expected a transcript line');
    expect(firstLine.timestamp?.toISOString()).toBe('2026-11-22T12:59:38.000Z');
    expect(firstLine.sessionId).toBe('11111111-aaaa-4bbb-8ccc-000000000001');
  });

  it('types all eleven hook names of the spec, and keeps unknown ones apart', () => {
    for (const name of HOOK_EVENT_NAMES) {
      const e = parseEventFrame({ hook_event_name: name, session_id: 's', extra_field: 1 });
      expect(e).toMatchObject({
        kind: 'hook',
        hookEventName: name,
        sessionId: 's',
        extra: { extra_field: 1 },
      });
    }
    expect(parseEventFrame({ hook_event_name: 'Future', x: 1 })).toMatchObject({
      kind: 'unknown_hook',
      hookEventName: 'Future',
    });
    expect(parseEventFrame([1])).toBeUndefined();
    expect(parseEventFrame('x')).toBeUndefined();
  });
});

describe('EventStream over a real ws server', () => {
  it('yields every replayed frame in order through the async iterator and the callbacks', async () => {
    const { port } = await server((socket) => {
      for (const f of FRAMES) socket.send(f);
    });
    const stream = open(port);
    const viaCallback: AnalyticsEvent[] = [];
    stream.on('event', (e) => viaCallback.push(e));
    const events = await take(stream, FRAMES.length);
    expect(events.map((e) => e.raw)).toEqual(FRAMES.map((f) => JSON.parse(f)));
    expect(viaCallback).toHaveLength(FRAMES.length);
    expect(stream.state).toBe('closed'); // breaking out of for-await closes the stream
  });

  it('reconnects after the server drops the connection and keeps delivering', async () => {
    const { port, connections } = await server((socket, index) => {
      if (index === 0) {
        const first = FRAMES.slice(0, 3);
        // Abrupt drop once the frames are written (not after a delay a slow machine may not meet).
        for (const [i, f] of first.entries())
          socket.send(f, i === first.length - 1 ? () => socket.terminate() : undefined);
      } else {
        for (const f of FRAMES.slice(3)) socket.send(f);
      }
    });
    const stream = open(port);
    const reconnecting: number[] = [];
    stream.on('reconnecting', ({ attempt }) => reconnecting.push(attempt));
    const events = await take(stream, FRAMES.length);
    expect(events.map((e) => e.raw)).toEqual(FRAMES.map((f) => JSON.parse(f)));
    expect(connections()).toBe(2);
    expect(reconnecting).toEqual([1]);
  });

  it('backs off between failed attempts, one attempt at a time, and resets after a success', async () => {
    // A port with nothing listening: every attempt fails.
    const probe = await server(() => {});
    const port = probe.port;
    await new Promise<void>((resolve) => {
      for (const c of probe.wss.clients) c.terminate();
      probe.wss.close(() => resolve());
    });
    const stream = open(port, {
      reconnect: { minDelayMs: 5, maxDelayMs: 20, jitter: false, maxAttempts: 4 },
    });
    const delays: number[] = [];
    let errors = 0;
    stream.on('reconnecting', ({ delayMs }) => delays.push(delayMs));
    stream.on('error', () => errors++);
    const iterator = stream[Symbol.asyncIterator]();
    await expect(iterator.next()).rejects.toMatchObject({ kind: 'network', attempts: 5 });
    expect(delays).toEqual([5, 10, 20, 20]);
    expect(stream.connections).toBe(5); // 1 + 4 reconnects, never two at once
    expect(errors).toBeGreaterThanOrEqual(5);
    expect(stream.state).toBe('closed');
  });

  it('reports unparsable frames as errors without ending the stream', async () => {
    const { port } = await server((socket) => {
      socket.send('not json');
      socket.send(FRAMES[0] ?? '');
    });
    const stream = open(port);
    const errors: string[] = [];
    stream.on('error', (e) => errors.push(e.kind));
    const [event] = await take(stream, 1);
    expect(event).toMatchObject({ kind: 'hook', hookEventName: 'SessionStart' });
    expect(errors).toEqual(['invalid_response']);
  });

  it('closes when the signal aborts', async () => {
    const { port } = await server(() => {});
    const controller = new AbortController();
    const stream = open(port, { signal: controller.signal });
    await new Promise<void>((resolve) => stream.on('open', () => resolve()));
    const done = take(stream, 1);
    controller.abort();
    await expect(done).resolves.toEqual([]);
    expect(stream.state).toBe('closed');
  });
});

describe('keep-alive with an injected WebSocket', () => {
  /** A socket that opens, answers nothing (no pong), and records pings. */
  function fakeSocketClass(log: { pings: number; created: number; terminated: number }) {
    return class FakeSocket implements WebSocketLike {
      readyState = 0;
      private listeners = new Map<string, Array<(e: unknown) => void>>();
      constructor(_url: string) {
        log.created++;
        setTimeout(() => {
          this.readyState = 1;
          this.fire('open', {});
        }, 1);
      }
      addEventListener(type: string, listener: (e: unknown) => void) {
        this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
      }
      fire(type: string, event: unknown) {
        for (const l of this.listeners.get(type) ?? []) l(event);
      }
      send() {}
      ping() {
        log.pings++;
      }
      terminate() {
        log.terminated++;
        this.readyState = 3;
        setTimeout(() => this.fire('close', { code: 1006, reason: '' }), 1);
      }
      close() {
        this.readyState = 3;
      }
    } satisfies WebSocketConstructor;
  }

  it('pings, drops a peer that does not answer, and reconnects', async () => {
    const log = { pings: 0, created: 0, terminated: 0 };
    const client = new AnalyticsClient({ fetch: async () => new Response() });
    const stream = client.events({
      WebSocket: fakeSocketClass(log),
      keepAliveMs: 15,
      reconnect: { minDelayMs: 5, jitter: false },
    });
    cleanups.push(() => stream.close());
    await new Promise<void>((resolve) => {
      let opens = 0;
      stream.on('open', () => {
        if (++opens === 2) resolve();
      });
    });
    expect(log.pings).toBeGreaterThanOrEqual(1);
    expect(log.terminated).toBe(1);
    expect(log.created).toBe(2);
  });
});
