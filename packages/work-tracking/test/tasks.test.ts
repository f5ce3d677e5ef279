import {
  InMemoryTaskStore,
  InMemoryWorkTrackingStore,
  ManualClock,
  TASK_RETENTION_DAYS,
} from '@agentgov/core';
import { makeTask } from '@agentgov/core/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { correlate, correlationAction, correlationScore } from '../src/correlation';
import { durationMs, priorityOf } from '../src/priority';
import { type ConnectorItem, TaskService } from '../src/tasks';

const T = 'acme';
const DAY = 86_400_000;

function service(start = '2025-01-01T00:00:00Z') {
  const clock = new ManualClock(start);
  const store = new InMemoryTaskStore();
  const counters = new InMemoryWorkTrackingStore();
  return { clock, store, counters, tasks: new TaskService({ store, counters, clock }) };
}

const item = (o: Partial<ConnectorItem> = {}): ConnectorItem => ({
  system: 'mail',
  id: crypto.randomUUID(),
  userId: 'alice',
  title: 'Quarterly budget review for the platform team',
  ...o,
});

describe('correlation', () => {
  it('applies the spec thresholds: >= 0.8 merge, 0.5–0.8 review, < 0.5 separate', () => {
    expect([0.8, 0.95, 1].map(correlationAction)).toEqual(['merge', 'merge', 'merge']);
    expect([0.5, 0.65, 0.799].map(correlationAction)).toEqual(['review', 'review', 'review']);
    expect([0, 0.2, 0.499].map(correlationAction)).toEqual(['separate', 'separate', 'separate']);
  });
  it('scores the same source and URL 1, a shared ticket 0.9, and explains itself', () => {
    const t = makeTask({
      title: 'Fix login ENG-12',
      sources: [{ system: 'tracker', id: 'ENG-12', url: 'https://t/browse/ENG-12' }],
    });
    expect(correlationScore({ system: 'tracker', id: 'ENG-12', title: 'x' }, t).score).toBe(1);
    expect(
      correlationScore({ system: 'mail', id: 'm1', url: 'https://t/browse/ENG-12', title: 'x' }, t).score,
    ).toBe(1);
    const shared = correlationScore({ system: 'mail', id: 'm2', title: 'Re: ENG-12 status?' }, t);
    expect(shared.score).toBe(0.9);
    expect(shared.reasons[0]).toBe('shared ticket reference ENG-12');
    const other = correlate({ system: 'mail', id: 'm3', title: 'Lunch on Friday' }, [t]);
    expect(other).toMatchObject({ taskId: t.id, action: 'separate' });
    expect(correlate({ system: 'mail', id: 'm4', title: 'x' }, [])).toBeUndefined();
  });
  it('property: the score is within [0, 1] and symmetric in the text part', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), fc.string({ maxLength: 60 }), (a, b) => {
        const s1 = correlationScore(
          { system: 's', id: '1', title: a },
          makeTask({ title: b || 'x', sources: [] }),
        ).score;
        const s2 = correlationScore(
          { system: 's', id: '1', title: b || 'x' },
          makeTask({ title: a || 'x', sources: [] }),
        ).score;
        expect(s1).toBeGreaterThanOrEqual(0);
        expect(s1).toBeLessThanOrEqual(1);
        if (a && b) expect(s1).toBe(s2);
      }),
      { numRuns: 200 },
    );
  });
});

describe('priority', () => {
  const now = new Date('2025-01-10T12:00:00Z');
  const base = {
    discoveredAt: '2025-01-10T00:00:00Z',
    deadline: null,
    urgencySignals: { senderSeniority: null, followUpCount: 0, slaTimer: null, blockingRelationships: [] },
  };
  it('is 0 with no signals and 100 with all of them at their maximum', () => {
    expect(priorityOf(base, now)).toEqual({ score: 0, factors: [] });
    const max = priorityOf(
      {
        ...base,
        deadline: '2025-01-09T00:00:00Z',
        urgencySignals: {
          senderSeniority: 1,
          followUpCount: 9,
          slaTimer: 'PT1H',
          blockingRelationships: ['a', 'b', 'c'],
        },
      },
      now,
    );
    expect(max.score).toBe(100);
    expect(max.factors.map((f) => f.signal)).toEqual([
      'deadline passed',
      'sender seniority',
      'follow-ups',
      'SLA breached',
      'blocks other items',
    ]);
  });
  it('a nearer deadline never lowers the priority', () => {
    const at = (h: number) =>
      priorityOf({ ...base, deadline: new Date(now.getTime() + h * 3_600_000).toISOString() }, now).score;
    const hours = [24 * 30, 24 * 7, 72, 24, 1, -1];
    const scores = hours.map(at);
    expect([...scores].sort((a, b) => a - b)).toEqual(scores);
    expect(scores[0]).toBeLessThan(scores.at(-1) as number);
  });
  it('property: always an integer in 0–100', () => {
    fc.assert(
      fc.property(
        fc.option(fc.date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true })),
        fc.option(fc.double({ min: -5, max: 50, noNaN: true })),
        fc.nat(100),
        fc.option(fc.constantFrom('PT4H', 'P2D', 'P1W', '2025-01-10T13:00:00Z', 'garbage')),
        fc.array(fc.string(), { maxLength: 10 }),
        (deadline, seniority, follow, sla, blocking) => {
          const p = priorityOf(
            {
              discoveredAt: base.discoveredAt,
              deadline: deadline?.toISOString() ?? null,
              urgencySignals: {
                senderSeniority: seniority,
                followUpCount: follow,
                slaTimer: sla,
                blockingRelationships: blocking,
              },
            },
            now,
          );
          expect(Number.isInteger(p.score)).toBe(true);
          expect(p.score).toBeGreaterThanOrEqual(0);
          expect(p.score).toBeLessThanOrEqual(100);
        },
      ),
    );
  });
  it('reads ISO 8601 durations', () => {
    expect(durationMs('PT4H')).toBe(4 * 3_600_000);
    expect(durationMs('P1DT30M')).toBe(DAY + 30 * 60_000);
    expect(durationMs('P2W')).toBe(14 * DAY);
    expect(durationMs('P')).toBeUndefined();
    expect(durationMs('PT')).toBeUndefined();
    expect(durationMs('4h')).toBeUndefined();
  });
});

describe('TaskService discovery', () => {
  it('a task is as sensitive as its most sensitive source: raised by a merge and by an update, never lowered', async () => {
    const { tasks, store } = service();
    const [first] = await tasks.discover(T, [
      item({ system: 'codehost', id: 'pr-7', title: 'ENG-12 Fix login', classification: 'public' }),
    ]);
    // A confidential tracker item merged into it.
    const [merged] = await tasks.discover(T, [
      item({ system: 'tracker', id: 'ENG-12', title: 'ENG-12 Login broken', classification: 'confidential' }),
    ]);
    expect(merged).toMatchObject({ outcome: 'merged', taskId: first?.taskId });
    expect((await store.get(T, first?.taskId as string))?.classification).toBe('confidential');
    // An update from the public source brings its title, not its level down.
    await tasks.discover(T, [
      item({ system: 'codehost', id: 'pr-7', title: 'ENG-12 Fix login (rebased)', classification: 'public' }),
    ]);
    expect(await store.get(T, first?.taskId as string)).toMatchObject({
      title: 'ENG-12 Fix login (rebased)',
      classification: 'confidential',
    });
    // An update that brings restricted content raises it.
    await tasks.discover(T, [
      item({ system: 'tracker', id: 'ENG-12', title: 'ENG-12 customer list', classification: 'restricted' }),
    ]);
    expect((await store.get(T, first?.taskId as string))?.classification).toBe('restricted');
  });

  it('creates, merges duplicates, flags possible relations, updates known sources; counts only new tasks', async () => {
    const { tasks, store, counters } = service();
    const [first] = await tasks.discover(T, [
      item({
        system: 'tracker',
        id: 'ENG-12',
        title: 'ENG-12 Fix login redirect on Safari',
        deadline: '2025-01-03T00:00:00Z',
      }),
    ]);
    expect(first).toMatchObject({ outcome: 'created' });
    const outcomes = await tasks.discover(T, [
      item({ system: 'mail', id: 'm1', title: 'Re: ENG-12 login redirect broken' }),
      item({
        system: 'chat',
        id: 'c1',
        title: 'Fix login redirect on Safari mobile',
        deadline: '2025-01-03T09:00:00Z',
      }),
      item({ system: 'mail', id: 'm2', title: 'Team offsite agenda' }),
      item({
        system: 'tracker',
        id: 'ENG-12',
        title: 'ENG-12 Fix login redirect on Safari (urgent)',
        urgencySignals: { followUpCount: 2 },
      }),
    ]);
    expect(outcomes.map((o) => o.outcome)).toEqual(['merged', 'created', 'created', 'updated']);
    expect(outcomes[0]).toMatchObject({
      taskId: first?.taskId,
      correlation: { score: 0.9, action: 'merge' },
    });
    const review = outcomes[1];
    expect(review?.correlation?.action).toBe('review');
    const flagged = await store.get(T, review?.taskId as string);
    expect(flagged).toMatchObject({ correlationId: first?.taskId });
    expect(flagged?.correlationConfidence).toBeGreaterThanOrEqual(0.5);
    expect(flagged?.correlationConfidence).toBeLessThan(0.8);
    const separate = await store.get(T, outcomes[2]?.taskId as string);
    expect([separate?.correlationId, separate?.correlationConfidence]).toEqual([null, null]);
    const merged = await store.get(T, first?.taskId as string);
    expect(merged?.sources.map((s) => `${s.system}:${s.id}`)).toEqual(['tracker:ENG-12', 'mail:m1']);
    expect(merged?.title).toBe('ENG-12 Fix login redirect on Safari (urgent)');
    expect(merged?.urgencySignals.followUpCount).toBe(2);
    expect(merged?.priorityScore).toBeGreaterThan(0);
    expect(await counters.counters(T)).toEqual({ tasksDiscovered: 3 });
    expect((await tasks.list(T, 'alice')).map((t) => t.priorityScore)).toEqual(
      (await tasks.list(T, 'alice')).map((t) => t.priorityScore).sort((a, b) => b - a),
    );
  });

  it('discovers through a TaskSource port', async () => {
    const { tasks, counters } = service();
    const source = {
      items: async (tenantId: string) =>
        tenantId === T ? [item(), item({ title: 'Something else entirely' })] : [],
    };
    expect((await tasks.discoverFrom(T, source)).map((o) => o.outcome)).toEqual(['created', 'created']);
    expect(await tasks.discoverFrom('other', source)).toEqual([]);
    expect((await counters.counters(T)).tasksDiscovered).toBe(2);
  });
});

describe('TaskService retention', () => {
  it('archives 30 days after completion, purges 90 days after archival, expires open tasks after 90 days; idempotent', async () => {
    const { tasks, store, clock } = service('2025-01-01T00:00:00Z');
    const [done, open] = await tasks.discover(T, [
      item({ title: 'Ship the release' }),
      item({ title: 'Read the handbook' }),
    ]);
    clock.advance(5 * DAY);
    await tasks.setStatus(T, done?.taskId as string, 'completed');
    const completedAt = clock.now().getTime();
    clock.set(completedAt + TASK_RETENTION_DAYS.archiveAfterCompletion * DAY - 1);
    expect(await tasks.sweep(T)).toEqual({ expired: 0, archived: 0, purged: 0 });
    clock.advance(1);
    expect(await tasks.sweep(T)).toEqual({ expired: 0, archived: 1, purged: 0 });
    const archived = await store.get(T, done?.taskId as string);
    expect(archived).toMatchObject({
      status: 'archived',
      archivedAt: new Date(completedAt + 30 * DAY).toISOString(),
      purgeAt: new Date(completedAt + 120 * DAY).toISOString(),
    });
    expect(await tasks.sweep(T)).toEqual({ expired: 0, archived: 0, purged: 0 });
    // The open task expires 90 days after discovery.
    clock.set(Date.parse('2025-01-01T00:00:00Z') + 90 * DAY);
    expect(await tasks.sweep(T)).toEqual({ expired: 1, archived: 1, purged: 0 });
    expect(await store.get(T, open?.taskId as string)).toMatchObject({
      status: 'archived',
      archivedAt: clock.now().toISOString(),
    });
    clock.set(completedAt + 120 * DAY);
    expect(await tasks.sweep(T)).toEqual({ expired: 0, archived: 0, purged: 1 });
    expect(await store.get(T, done?.taskId as string)).toBeUndefined();
    expect(await tasks.sweep(T)).toEqual({ expired: 0, archived: 0, purged: 0 });
  });

  it('a late sweep produces the same dates as a punctual one (archive and purge in one pass)', async () => {
    const { tasks, store, clock } = service('2025-01-01T00:00:00Z');
    const [a] = await tasks.discover(T, [item()]);
    await tasks.setStatus(T, a?.taskId as string, 'active');
    await tasks.setStatus(T, a?.taskId as string, 'completed');
    clock.advance(400 * DAY);
    expect(await tasks.sweep(T)).toEqual({ expired: 0, archived: 1, purged: 1 });
    expect(await store.list(T)).toEqual([]);
  });

  it('status changes: only open tasks change; unknown tasks are NOT_FOUND', async () => {
    const { tasks, clock } = service();
    const [a] = await tasks.discover(T, [item()]);
    await tasks.setStatus(T, a?.taskId as string, 'completed');
    await expect(tasks.setStatus(T, a?.taskId as string, 'active')).rejects.toMatchObject({
      code: 'invalid_type',
    });
    await expect(tasks.setStatus(T, crypto.randomUUID(), 'active')).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect((await tasks.get(T, a?.taskId as string)).completedAt).toBe(clock.now().toISOString());
  });
});
