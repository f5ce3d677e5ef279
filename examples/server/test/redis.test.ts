/**
 * The Redis client's events (src/redis.ts): nothing printed or logged while the server starts (the
 * start-up reports an unreachable Redis in one line), then one `warn` line when an outage starts
 * and one `info` line when Redis is back — never one per reconnection attempt.
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { watchRedis } from '../src/redis';

describe('watchRedis', () => {
  it('listens to every error (no ioredis "Unhandled error event"), logging an outage once', () => {
    const client = new EventEmitter();
    const lines: [string, string, Record<string, unknown> | undefined][] = [];
    const log = (level: string) => (message: string, fields?: Record<string, unknown>) =>
      lines.push([level, message, fields]);
    watchRedis(client, { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') });
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
    expect(client.listenerCount('error')).toBe(1);
    client.emit('error', refused); // before the first connection: the start-up's to report
    expect(lines).toEqual([]);
    client.emit('ready');
    client.emit('error', refused);
    client.emit('error', refused);
    client.emit('error', refused);
    client.emit('ready');
    client.emit('ready');
    expect(lines).toEqual([
      [
        'warn',
        'Redis unreachable; rate limits are kept in-process until it returns',
        { error: 'ECONNREFUSED' },
      ],
      ['info', 'Redis reachable again', undefined],
    ]);
  });
});
