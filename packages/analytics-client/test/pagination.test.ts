/**
 * Offset pagination: where iteration stops (at a reported `total`, past pages a server shortened;
 * without one, on a short page; always on an empty page), that `total` is only what the server
 * reported, and that a server ignoring `offset` fails the iteration instead of looping over duplicates.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AnalyticsApiError, PageIterator } from '../src';
import { fixtureClient, loadFixture } from './helpers';

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const session = (id: string) => ({ id, started_at: '2026-11-22T00:00:00Z' });
const IDS = ['a', 'b', 'c', 'd', 'e'];

/** A sessions endpoint over `ids` that honours offset, serves at most `cap` items a page and adds `extra`. */
const sessionsServer =
  (ids: string[], extra: Record<string, unknown>, cap = Number.POSITIVE_INFINITY) =>
  (req: { url: URL }) => {
    const offset = Number(req.url.searchParams.get('offset'));
    const limit = Math.min(Number(req.url.searchParams.get('limit')), cap);
    return json(200, { sessions: ids.slice(offset, offset + limit).map(session), ...extra });
  };

describe('pagination', () => {
  const sessionsPage = (ids: string[], total: number) => json(200, { sessions: ids.map(session), total });

  it('walks limit/offset until total, lazily', async () => {
    const t = fixtureClient([sessionsServer(IDS, { total: 5 }, 2)]);
    const ids: string[] = [];
    for await (const s of t.client.iterateSessions({ project: 'p' }, { pageSize: 2 })) ids.push(s.id);
    expect(ids).toEqual(IDS);
    expect(t.requests.map((r) => r.url.search)).toEqual([
      '?project=p&limit=2&offset=0',
      '?project=p&limit=2&offset=2',
      '?project=p&limit=2&offset=4',
    ]);
  });

  it('stops on a short page when no total is reported, and collect() stops early without extra requests', async () => {
    const msg = (id: string) => ({ id, type: 'user' });
    const t = fixtureClient([
      (req) => {
        const offset = Number(req.url.searchParams.get('offset'));
        const all = ['m1', 'm2', 'm3', 'm4', 'm5'].slice(offset, offset + 2);
        return json(200, { messages: all.map(msg) });
      },
    ]);
    expect((await t.client.iterateMessages({}, { pageSize: 2 }).collect()).map((m) => m.id)).toEqual([
      'm1',
      'm2',
      'm3',
      'm4',
      'm5',
    ]);
    expect(t.requests).toHaveLength(3);
    t.requests.length = 0;
    expect(
      (await t.client.iterateMessages({}, { pageSize: 2 }).collect({ max: 3 })).map((m) => m.id),
    ).toEqual(['m1', 'm2', 'm3']);
    expect(t.requests).toHaveLength(2);
    t.requests.length = 0;
    const until = await t.client
      .iterateMessages({}, { pageSize: 2 })
      .collect({ until: (m) => m.id === 'm2' });
    expect(until.map((m) => m.id)).toEqual(['m1']);
    expect(t.requests).toHaveLength(1);
  });

  it('exposes pages with offsets and totals', async () => {
    const t = fixtureClient([loadFixture('sessions_limit1_offset1'), () => sessionsPage([], 3)]);
    const pages = [];
    for await (const p of t.client.iterateSessions({}, { pageSize: 1, startOffset: 1 }).pages())
      pages.push(p);
    expect(pages.map((p) => [p.offset, p.total, p.items.length])).toEqual([[1, 3, 1]]);
    expect(t.requests).toHaveLength(2);
  });

  it('treats a null list as the end', async () => {
    const t = fixtureClient([() => json(200, { tool_calls: null })]);
    expect(await t.client.iterateToolCalls().collect()).toEqual([]);
  });

  for (const [name, extra] of [
    ['missing', {}],
    ['null', { total: null }],
  ] as const) {
    it(`with total ${name}: total is undefined and iteration goes on to a short page`, async () => {
      const t = fixtureClient([sessionsServer(IDS, extra)]);
      expect((await t.client.listSessions({ limit: 2 })).total).toBeUndefined();
      t.requests.length = 0;
      const ids = (await t.client.iterateSessions({}, { pageSize: 2 }).collect()).map((s) => s.id);
      expect(ids).toEqual(IDS);
      expect(t.requests.map((r) => r.url.searchParams.get('offset'))).toEqual(['0', '2', '4']);
      const p = fixtureClient([() => json(200, { prompts: [{ id: 'p1' }], ...extra })]);
      expect((await p.client.listPrompts()).total).toBeUndefined();
    });
  }

  it('with a total, goes on past pages a server shortened (page size cap), up to the total', async () => {
    const t = fixtureClient([sessionsServer(IDS, { total: 5 }, 2)]);
    const ids = (await t.client.iterateSessions({}, { pageSize: 10 }).collect()).map((s) => s.id);
    expect(ids).toEqual(IDS);
    expect(t.requests.map((r) => r.url.searchParams.get('offset'))).toEqual(['0', '2', '4']);
  });

  it('with a total larger than what is there, stops on the empty page', async () => {
    const t = fixtureClient([sessionsServer(['a', 'b', 'c'], { total: 10 })]);
    const ids = (await t.client.iterateSessions({}, { pageSize: 2 }).collect()).map((s) => s.id);
    expect(ids).toEqual(['a', 'b', 'c']);
    expect(t.requests.map((r) => r.url.searchParams.get('offset'))).toEqual(['0', '2', '3']);
  });

  // The servers below ignore `offset`; after 20 requests they answer an empty page, so that a client
  // without the guard ends (with duplicates) instead of hanging the test.
  const ignoresOffset = (page: Response | (() => Response)) => {
    let n = 0;
    return () =>
      ++n > 20 ? json(200, { sessions: [], messages: [] }) : typeof page === 'function' ? page() : page;
  };

  it('fails with invalid_response when a page repeats the previous one (server ignores offset)', async () => {
    const t = fixtureClient([
      ignoresOffset(() => json(200, { sessions: ['a', 'b'].map(session), total: 5 })),
    ]);
    const seen: string[] = [];
    const e = await (async () => {
      for await (const s of t.client.iterateSessions({ project: 'p' }, { pageSize: 2 })) seen.push(s.id);
    })().then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(AnalyticsApiError);
    expect(e).toMatchObject({ kind: 'invalid_response', endpoint: 'GET /api/sessions' });
    expect((e as Error).message).toContain('offset 2');
    expect(seen).toEqual(['a', 'b']);
    expect(t.requests).toHaveLength(2);

    const m = fixtureClient([ignoresOffset(() => json(200, { messages: [{ id: 'm1' }, { id: 'm2' }] }))]);
    await expect(m.client.iterateMessages({}, { pageSize: 2 }).collect()).rejects.toMatchObject({
      kind: 'invalid_response',
    });
    expect(m.requests).toHaveLength(2);
  });

  it('does not mistake an overlapping page (items shifted by an insert) for a repeat', async () => {
    const pages = [['a', 'b'], ['b', 'c'], ['d']];
    const t = fixtureClient(pages.map((ids) => () => json(200, { sessions: ids.map(session) })));
    const ids = (await t.client.iterateSessions({}, { pageSize: 2 }).collect()).map((s) => s.id);
    expect(ids).toEqual(['a', 'b', 'b', 'c', 'd']);
  });

  it('a PageIterator of its own fails with a plain Error on a repeated page (items compared by value)', async () => {
    let n = 0;
    const iterator = new PageIterator(async () => ({ items: ++n > 20 ? [] : [1, 2] }), 2);
    await expect(iterator.collect()).rejects.toThrow(/offset 2 .*repeats the previous page/);
  });

  it('yields every item once, in order: up to a total past capped pages, else up to a short page', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 30 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 8 }),
        fc.boolean(),
        async (count, pageSize, cap, reportTotal) => {
          const all = Array.from({ length: count }, (_, i) => ({ id: `s${i}` }));
          const iterator = new PageIterator(async (limit, offset) => {
            const items = all.slice(offset, offset + Math.min(limit, cap));
            return { items, total: reportTotal ? count : undefined };
          }, pageSize);
          // Without a total, a page shortened by the cap reads as the last one (documented).
          const expected = reportTotal || cap >= pageSize ? all : all.slice(0, cap);
          expect(await iterator.collect()).toEqual(expected);
        },
      ),
      { numRuns: 200 },
    );
  });
});
