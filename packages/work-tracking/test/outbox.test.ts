/** The outbox through a tracker outage: nothing is lost, retries back off, final outcomes audited. */
import { InMemoryAuditSink, InMemoryWorkTrackingStore, ManualClock, type TrackerWrite } from '@agentgov/core';
import { makeTrackerWrite } from '@agentgov/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpTrackerClient } from '../src/http-tracker';
import { TrackerOutbox } from '../src/outbox';
import { type LoopbackTracker, startLoopbackTracker } from '../src/testing/index';
import { manualTimeouts, setup, TENANT } from './helpers';
import { mergedPullRequest } from './payloads';

/** Records `writes` as produced by one delivery. */
const seed = (store: InMemoryWorkTrackingStore, clock: ManualClock, writes: TrackerWrite[]) =>
  store.recordDelivery({
    delivery: {
      tenantId: TENANT,
      source: 'codehost',
      deliveryId: crypto.randomUUID(),
      event: 'pull_request',
      receivedAt: clock.now().toISOString(),
    },
    activities: [],
    writes,
  });

describe('TrackerOutbox', () => {
  let server: LoopbackTracker;
  // Attempts time out only when the tracker has parked a request (a `hang`), never on a real clock:
  // a slow machine cannot turn an answered request into a timeout.
  let timeouts: ReturnType<typeof manualTimeouts>;
  beforeEach(async () => {
    server = await startLoopbackTracker();
    server.tracker.addTicket('ENG-12');
    timeouts = manualTimeouts();
    server.onHang = timeouts.expire;
  });
  afterEach(async () => {
    await server.close();
  });

  const outboxOver = (
    clock: ManualClock,
    store = new InMemoryWorkTrackingStore(),
    audit = new InMemoryAuditSink(clock),
  ) => ({
    store,
    audit,
    outbox: new TrackerOutbox({
      store,
      audit,
      clock,
      backoffMs: 1_000,
      maxBackoffMs: 8_000,
      clientFor: async () =>
        new HttpTrackerClient({
          baseUrl: server.url,
          retries: 0,
          timeoutMs: 200,
          timeoutSignal: timeouts.signal,
        }),
    }),
  });

  it('a tracker outage (5xx, 429, hang, down) keeps the write; it is delivered once the tracker is back', async () => {
    const clock = new ManualClock('2025-01-01T00:00:00Z');
    const { store, audit, outbox } = outboxOver(clock);
    const w = makeTrackerWrite({
      tenantId: TENANT,
      ticketId: 'ENG-12',
      comment: 'merged',
      nextAttemptAt: clock.now().toISOString(),
    });
    await seed(store, clock, [w]);
    server.faults.push({ status: 503 }, { status: 429, retryAfter: '30' }, { hang: true }, { status: 500 });
    const waits: number[] = [];
    const errors: (string | null | undefined)[] = [];
    for (let i = 0; i < 4; i++) {
      expect(await outbox.drain()).toEqual({ delivered: 0, retrying: 1, failed: 0 });
      const now = await store.getWrite(TENANT, w.id);
      expect(now).toMatchObject({ state: 'pending', attempts: i + 1 });
      waits.push(Date.parse(now?.nextAttemptAt ?? '') - clock.now().getTime());
      errors.push(now?.lastError);
      // Not due before its time.
      expect(await outbox.drain()).toEqual({ delivered: 0, retrying: 0, failed: 0 });
      clock.set(now?.nextAttemptAt ?? '');
    }
    // Exponential backoff, Retry-After (30 s) honoured when longer, capped at 8 s otherwise.
    expect(waits).toEqual([1_000, 30_000, 4_000, 8_000]);
    expect(errors).toEqual([
      expect.stringMatching(/answered 503/),
      expect.stringMatching(/answered 429/),
      expect.stringMatching(/did not answer within 200 ms/),
      expect.stringMatching(/answered 500/),
    ]);
    expect(server.requests).toHaveLength(4);
    expect(server.tracker.tickets.get('ENG-12')?.comments).toEqual([]);
    expect(audit.entries).toEqual([]);
    expect(await outbox.drain()).toEqual({ delivered: 1, retrying: 0, failed: 0 });
    expect(server.tracker.tickets.get('ENG-12')?.comments.map((c) => c.body)).toEqual(['merged']);
    expect(await store.getWrite(TENANT, w.id)).toMatchObject({
      state: 'delivered',
      attempts: 5,
      lastError: null,
      deliveredAt: clock.now().toISOString(),
    });
    expect(
      audit.entries.map((e) => [
        e.actionDetail.tool,
        e.actionDetail.ticketId,
        e.actionDetail.outcome,
        e.actionDetail.attempts,
      ]),
    ).toEqual([['tracker_update', 'ENG-12', 'success', 5]]);
  });

  it('the tracker process being down entirely is survived too', async () => {
    const clock = new ManualClock('2025-01-01T00:00:00Z');
    const { store, outbox } = outboxOver(clock);
    const w = makeTrackerWrite({
      tenantId: TENANT,
      ticketId: 'ENG-12',
      nextAttemptAt: clock.now().toISOString(),
    });
    await seed(store, clock, [w]);
    const tickets = server.tracker.tickets;
    await server.close();
    expect(await outbox.drain()).toMatchObject({ retrying: 1 });
    expect((await store.getWrite(TENANT, w.id))?.lastError).toMatch(/unreachable/);
    server = await startLoopbackTracker();
    for (const [k, t] of tickets) server.tracker.tickets.set(k, t);
    // The new server listens elsewhere: point the outbox at it (configuration changed).
    const again = outboxOver(clock, store);
    clock.advance(60_000);
    expect(await again.outbox.drain()).toMatchObject({ delivered: 1 });
  });

  it('a permanent failure ends in failed (audited as error) and retry() re-queues it', async () => {
    const clock = new ManualClock('2025-01-01T00:00:00Z');
    const { store, audit, outbox } = outboxOver(clock);
    const missing = makeTrackerWrite({
      tenantId: TENANT,
      ticketId: 'ENG-99',
      nextAttemptAt: clock.now().toISOString(),
    });
    const badTransition = makeTrackerWrite({
      tenantId: TENANT,
      ticketId: 'ENG-12',
      tool: 'tracker_transition',
      comment: null,
      transitionName: 'Reopen',
      nextAttemptAt: clock.now().toISOString(),
    });
    await seed(store, clock, [missing, badTransition]);
    expect(await outbox.drain()).toEqual({ delivered: 0, retrying: 0, failed: 2 });
    expect(
      audit.entries.map((e) => [e.actionDetail.ticketId, e.actionDetail.outcome, e.outcome]).sort(),
    ).toEqual([
      ['ENG-12', 'error', 'error'],
      ['ENG-99', 'error', 'error'],
    ]);
    expect((await store.getWrite(TENANT, badTransition.id))?.lastError).toMatch(/Reopen/);
    server.tracker.addTicket('ENG-99');
    await outbox.retry(TENANT, missing.id);
    await expect(outbox.retry(TENANT, missing.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await outbox.drain()).toEqual({ delivered: 1, retrying: 0, failed: 0 });
    expect(server.tracker.tickets.get('ENG-99')?.comments).toHaveLength(1);
  });

  it('two workers draining one store deliver each write exactly once', async () => {
    const clock = new ManualClock('2025-01-01T00:00:00Z');
    const store = new InMemoryWorkTrackingStore();
    const a = outboxOver(clock, store);
    const b = outboxOver(clock, store);
    const writes = Array.from({ length: 10 }, (_, i) =>
      makeTrackerWrite({
        tenantId: TENANT,
        ticketId: 'ENG-12',
        comment: `c${i}`,
        nextAttemptAt: clock.now().toISOString(),
      }),
    );
    await seed(store, clock, writes);
    const [ra, rb] = await Promise.all([a.outbox.drain(), b.outbox.drain()]);
    expect(ra.delivered + rb.delivered).toBe(10);
    expect(
      server.tracker.tickets
        .get('ENG-12')
        ?.comments.map((c) => c.body)
        .sort(),
    ).toEqual(writes.map((w) => w.comment).sort());
  });

  it('no tracker configured: writes wait (pending), never dropped', async () => {
    const s = setup();
    s.setTrackerUp(false);
    await s.send('pull_request', mergedPullRequest());
    expect(await s.outbox.drain()).toEqual({ delivered: 0, retrying: 2, failed: 0 });
    expect(await s.store.listWrites(TENANT, { state: 'pending' })).toHaveLength(2);
    s.setTrackerUp(true);
    s.clock.advance(60_000);
    expect(await s.outbox.drain()).toEqual({ delivered: 2, retrying: 0, failed: 0 });
  });
});
