/**
 * Input validation: every invalid argument is refused with an AnalyticsValidationError naming the
 * field, and nothing reaches the (real, loopback) server. Valid boundary values still go out.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AnalyticsClient, AnalyticsValidationError } from '../src';
import { type Loopback, reply, startLoopback } from './loopback';

let lb: Loopback;
let client: AnalyticsClient;
beforeAll(async () => {
  lb = await startLoopback(reply(500, { error: 'the server must not be reached' }));
  client = lb.client({ retry: false });
});
afterAll(() => lb.close());
beforeEach(() => {
  lb.seen.length = 0;
});

const budget = { name: 'Team', period: 'monthly', amountUsd: 10 } as const;
// Casts stand for what plain JavaScript callers (or `as` in TypeScript) can pass.
type Loose = never;

const cases: Array<[string, string, (c: AnalyticsClient) => unknown]> = [
  // Budgets: the spec's periods only, finite amounts >= 0, a name, integer ids.
  ['budget period yearly', 'period', (c) => c.createBudget({ ...budget, period: 'yearly' as Loose })],
  ['budget negative amount', 'amountUsd', (c) => c.createBudget({ ...budget, amountUsd: -1 })],
  ['budget NaN amount', 'amountUsd', (c) => c.createBudget({ ...budget, amountUsd: Number.NaN })],
  ['budget infinite amount', 'amountUsd', (c) => c.createBudget({ ...budget, amountUsd: Infinity })],
  ['budget amount as string', 'amountUsd', (c) => c.createBudget({ ...budget, amountUsd: '5' as Loose })],
  ['budget empty name', 'name', (c) => c.createBudget({ ...budget, name: '  ' })],
  [
    'budget unknown field',
    'warning_threshold',
    (c) => c.createBudget({ ...budget, warning_threshold: 0.8 } as Loose),
  ],
  ['update budget period', 'period', (c) => c.updateBudget(1, { ...budget, period: 'hourly' as Loose })],
  ['update budget NaN', 'amountUsd', (c) => c.updateBudget(1, { ...budget, amountUsd: Number.NaN })],
  ['update budget fractional id', 'id', (c) => c.updateBudget(1.5, budget)],
  ['delete budget negative id', 'id', (c) => c.deleteBudget(-1)],
  // Search: q is required.
  ['search empty q', 'q', (c) => c.search('')],
  ['search blank q', 'q', (c) => c.search('   ')],
  ['search limit 0', 'limit', (c) => c.search('x', { limit: 0 })],
  // Export: the spec's formats, an ordered range.
  ['export format xml', 'format', (c) => c.export({ format: 'xml' as Loose })],
  ['export from after to', 'to', (c) => c.export({ from: '2026-11-20', to: '2026-11-10' })],
  ['exportSessions bad date', 'from', (c) => c.exportSessions({ from: '20/11/2026' })],
  // Paging.
  ['negative limit', 'limit', (c) => c.listSessions({ limit: -1 })],
  ['fractional limit', 'limit', (c) => c.listMessages({ limit: 2.5 })],
  ['NaN offset', 'offset', (c) => c.listToolCalls({ offset: Number.NaN })],
  ['negative offset', 'offset', (c) => c.listSubagents({ offset: -1 })],
  ['prompts limit 0', 'limit', (c) => c.listPrompts({ limit: 0 })],
  ['prompts preview length', 'previewLength', (c) => c.listPrompts({ previewLength: -5 })],
  ['daily days 0', 'days', (c) => c.getDailyStats({ days: 0 })],
  // Dates.
  ['sessions from after to', 'to', (c) => c.listSessions({ from: '2026-11-22T10:00:00Z', to: '2026-11-21' })],
  [
    'stats from after to',
    'to',
    (c) => c.getStats({ from: new Date('2026-11-22'), to: new Date('2026-11-01') }),
  ],
  ['errors from after to', 'to', (c) => c.getErrorStats({ from: '2026-12-01', to: '2026-11-01' })],
  ['insights from after to', 'to', (c) => c.getInsights({ from: '2026-12-01', to: '2026-11-01' })],
  ['impossible day', 'from', (c) => c.listSessions({ from: '2026-02-30' })],
  // Impossible days and times in full timestamps (Date would shift them to March, or the next day).
  ['impossible timestamp', 'from', (c) => c.listSessions({ from: '2026-02-30T00:00:00Z' })],
  ['impossible timestamp with offset', 'to', (c) => c.listSessions({ to: '2026-02-31T10:00:00+01:00' })],
  ['hour 24', 'from', (c) => c.iterateSessions({ from: '2026-11-22T24:00:00Z' })],
  ['impossible stats timestamp', 'to', (c) => c.getStats({ to: '2026-04-31T00:00:00Z' })],
  ['impossible errors timestamp', 'from', (c) => c.getErrorStats({ from: '2025-02-29T12:00:00Z' })],
  ['impossible insights timestamp', 'to', (c) => c.getInsights({ to: '2026-13-01T00:00:00Z' })],
  ['impossible export timestamp', 'from', (c) => c.export({ from: '2026-06-31T00:00:00Z' })],
  ['impossible exportSessions time', 'to', (c) => c.exportSessions({ to: '2026-06-30T23:60:00Z' })],
  ['impossible offset', 'from', (c) => c.listSessions({ from: '2026-06-30T00:00:00+24:00' })],
  ['invalid Date', 'to', (c) => c.getStats({ to: new Date(Number.NaN) })],
  ['date as number', 'from', (c) => c.listSessions({ from: 1700000000 as Loose })],
  // Enums and required values.
  ['message type system', 'type', (c) => c.listMessages({ type: 'system' as Loose })],
  ['insights period yearly', 'period', (c) => c.getInsights({ period: 'yearly' as Loose })],
  ['heatmap without project', 'project', (c) => c.getFileHeatmap({ project: '' })],
  ['session breakdown without id', 'sessionId', (c) => c.getSessionBreakdown('')],
  ['project breakdown without project', 'project', (c) => c.getProjectBreakdown('')],
  ['empty session id', 'id', (c) => c.getSession('')],
  ['empty timeline id', 'id', (c) => c.getTimeline(' ')],
  ['empty commits id', 'id', (c) => c.getCommits('')],
  ['empty prompt id', 'id', (c) => c.getPrompt('')],
  ['compare without b', 'b', (c) => c.compareSessions('a', '')],
  ['git sync empty session', 'sessionId', (c) => c.syncGit({ sessionId: '' })],
  // Sessions.
  ['tag with a comma', 'tags.0', (c) => c.updateSession('s', { tags: ['a,b'] })],
  ['tags not an array', 'tags', (c) => c.updateSession('s', { tags: 'a' as Loose })],
  ['notes not a string', 'notes', (c) => c.updateSession('s', { notes: 3 as Loose })],
  ['misspelt filter', 'projet', (c) => c.listSessions({ projet: '/x' } as Loose)],
  ['model not a string', 'model', (c) => c.listSessions({ model: 4 as Loose })],
  // Config: JSON has no NaN.
  ['config NaN', 'ui.sessionsPerPage', (c) => c.saveConfig({ ui: { sessionsPerPage: Number.NaN } })],
  ['config not an object', '(arguments)', (c) => c.saveConfig('x' as Loose)],
  // Call options.
  ['negative per-call timeout', 'timeoutMs', (c) => c.listTags({ timeoutMs: -1 })],
  ['negative retries', 'retry.retries', (c) => c.getStats({}, { retry: { retries: -1 } })],
  ['misspelt retry option', 'retry.retires', (c) => c.listTags({ retry: { retires: 3 } as Loose })],
  ['NaN deadline', 'retry.deadlineMs', (c) => c.listTags({ retry: { deadlineMs: Number.NaN } })],
  ['header value not a string', 'headers.x-n', (c) => c.listTags({ headers: { 'x-n': 1 as Loose } })],
  [
    'header value beyond U+00FF',
    'headers.authorization',
    (c) => c.listTags({ headers: { authorization: 'Bearer …' } }),
  ],
  ['header value with a newline', 'headers.x-n', (c) => c.getStats({}, { headers: { 'x-n': 'a\r\nb: c' } })],
  ['header name with a space', 'headers.x n', (c) => c.syncGit({}, { headers: { 'x n': 'v' } })],
  ['signal not a signal', 'signal', (c) => c.listTags({ signal: 'x' as Loose })],
  ['signal of an iterator', 'signal', (c) => c.iterateSessions({}, { signal: {} as Loose }).collect()],
  // Iterators refuse synchronously.
  ['iterate page size 0', 'pageSize', (c) => c.iterateSessions({}, { pageSize: 0 })],
  ['iterate filter', 'type', (c) => c.iterateMessages({ type: 'tool' as Loose })],
];

describe('invalid arguments are refused before sending', () => {
  for (const [name, field, call] of cases) {
    it(`${name} -> ${field}`, async () => {
      let error: unknown;
      try {
        await call(client);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(AnalyticsValidationError);
      const v = error as AnalyticsValidationError;
      expect(v.field).toBe(field);
      expect(v.kind).toBe('validation');
      expect(v.message).toContain(field);
      expect(v.message).toContain('nothing was sent');
      expect(v.issues[0]?.field).toBe(field);
      expect(lb.seen).toEqual([]);
    });
  }

  it('names the endpoint and lists every invalid field', async () => {
    const e = (await client
      .createBudget({ name: '', period: 'yearly' as Loose, amountUsd: -1 })
      .catch((x: unknown) => x)) as AnalyticsValidationError;
    expect(e.endpoint).toBe('POST /api/budgets');
    expect(e.issues.map((i) => i.field).sort()).toEqual(['amountUsd', 'name', 'period']);
    expect(e.message).toContain('and 2 more');
    expect(lb.seen).toEqual([]);
  });
});

describe('client options', () => {
  it('are checked when the client is made', () => {
    expect(() => lb.client({ timeoutMs: -5 })).toThrow(AnalyticsValidationError);
    expect(() => lb.client({ retry: { jitter: 'half' as Loose } })).toThrow(/invalid retry\.jitter/);
    expect(() => lb.client({ retry: { factor: 0.5 } })).toThrow(/invalid retry\.factor/);
    expect(() => lb.client({ retry: false, timeoutMs: 0 })).not.toThrow();
    expect(() => lb.client({ baseUrl: 'not a url' })).toThrow(/invalid baseUrl: must be an absolute URL/);
    expect(() => lb.client({ headers: { authorization: 'Bearer …' } })).toThrow(
      /invalid headers\.authorization/,
    );
  });

  it('refuse a base URL with credentials (fetch cannot send them), without quoting them', () => {
    const withCredentials = lb.baseUrl.replace('http://', 'http://alice:s3cret@');
    for (const baseUrl of [withCredentials, new URL(withCredentials), lb.baseUrl.replace('//', '//alice@')]) {
      let error: unknown;
      try {
        lb.client({ baseUrl });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(AnalyticsValidationError);
      expect(error).toMatchObject({ field: 'baseUrl', endpoint: 'new AnalyticsClient' });
      expect((error as Error).message).toMatch(/must not contain credentials/);
      expect((error as Error).message).not.toMatch(/alice|s3cret/);
    }
    expect(lb.seen).toEqual([]);
  });
});

describe('valid boundary values are sent', () => {
  it('amount 0, from equal to to, the spec periods', async () => {
    for (const period of ['daily', 'weekly', 'monthly'] as const) {
      await client.createBudget({ ...budget, period, amountUsd: 0 }).catch(() => undefined);
    }
    await client
      .listSessions({ from: '2026-11-22', to: '2026-11-22', limit: 1, offset: 0 })
      .catch(() => undefined);
    await client.search('login', { limit: 1 }).catch(() => undefined);
    await client.export({ format: 'csv' }).catch(() => undefined);
    expect(lb.seen.map((r) => `${r.method} ${r.url.pathname}`)).toEqual([
      'POST /api/budgets',
      'POST /api/budgets',
      'POST /api/budgets',
      'GET /api/sessions',
      'GET /api/search',
      'GET /api/export',
    ]);
    expect(lb.seen.map((r) => (r.body ? JSON.parse(r.body).period : undefined)).slice(0, 3)).toEqual([
      'daily',
      'weekly',
      'monthly',
    ]);
    expect(JSON.parse(lb.seen[0]?.body ?? '{}').amount_usd).toBe(0);
    expect(Object.fromEntries(lb.seen[3]?.url.searchParams ?? [])).toEqual({
      from: '2026-11-22',
      to: '2026-11-22T23:59:59Z',
      limit: '1',
      offset: '0',
    });
  });
});
