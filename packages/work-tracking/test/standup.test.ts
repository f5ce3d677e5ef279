import { InMemoryWorkTrackingStore } from '@agentgov/core';
import { makeActivity, makeDelivery } from '@agentgov/core/testing';
import { describe, expect, it } from 'vitest';
import { signBody } from '../src/signature';
import { StandupService } from '../src/standup';
import { dayBounds, isTimeZone, parseDate } from '../src/time-zone';
import { setup, TENANT } from './helpers';
import { branchPush, example, jiraIssueUpdated, mergedPullRequest, openedPullRequest } from './payloads';

describe('time zones', () => {
  it('day bounds are local midnights (DST days are 23 and 25 hours)', () => {
    expect(dayBounds('2025-06-01', 'UTC')).toEqual({
      from: new Date('2025-06-01T00:00:00Z'),
      to: new Date('2025-06-02T00:00:00Z'),
    });
    expect(dayBounds('2025-06-01', 'America/Los_Angeles').from.toISOString()).toBe(
      '2025-06-01T07:00:00.000Z',
    );
    expect(dayBounds('2025-06-01', 'Asia/Kolkata').from.toISOString()).toBe('2025-05-31T18:30:00.000Z');
    const spring = dayBounds('2025-03-30', 'Europe/Berlin');
    expect([spring.from.toISOString(), spring.to.toISOString()]).toEqual([
      '2025-03-29T23:00:00.000Z',
      '2025-03-30T22:00:00.000Z',
    ]);
    const fall = dayBounds('2025-10-26', 'Europe/Berlin');
    expect((fall.to.getTime() - fall.from.getTime()) / 3_600_000).toBe(25);
    expect(dayBounds('2024-12-31', 'Pacific/Kiritimati').to.toISOString()).toBe('2024-12-31T10:00:00.000Z');
  });
  it('parses only real calendar dates', () => {
    expect(parseDate('2024-02-29')).toEqual({ y: 2024, m: 2, d: 29 });
    for (const bad of [
      '2025-02-29',
      '2025-13-01',
      '2025-1-01',
      '20250101',
      '2025-01-01T00:00:00Z',
      '',
      'yesterday',
    ])
      expect(parseDate(bad)).toBeUndefined();
    expect(isTimeZone('Europe/Berlin')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
  });
});

describe('standup summary from recorded activity', () => {
  it('summarizes a day of real webhook activity: PRs opened, merged, closed, reviewed; pushes; tickets', async () => {
    const s = setup();
    await s.send('pull_request', openedPullRequest('feature/ENG-12-readme'));
    await s.send('pull_request', mergedPullRequest({ mergedAt: '2019-05-15T15:20:33Z' }));
    const closed = example('pull_request', 'closed');
    closed.pull_request.number = 3;
    await s.send('pull_request', closed);
    await s.send('pull_request_review', example('pull_request_review', 'submitted'));
    await s.send('push', branchPush(['ENG-12: fix typo', 'OPS-3 follow-up']));
    const raw = new TextEncoder().encode(JSON.stringify(jiraIssueUpdated()));
    await s.webhooks.receive('tracker', {
      tenantId: TENANT,
      headers: new Headers({
        'content-type': 'application/json',
        'x-hub-signature-256': signBody('tracker-secret', raw),
      }),
      rawBody: raw,
      payload: jiraIssueUpdated(),
      requestId: 'r',
    });
    const standup = new StandupService({ store: s.store });
    const day = await standup.summarize(TENANT, 'alice', '2019-05-15');
    expect(day.totals).toEqual({
      pullRequestsOpened: 1,
      pullRequestsMerged: 1,
      pullRequestsClosed: 1,
      reviews: 1,
      pushes: 1,
      commits: 2,
      ticketsUpdated: 1,
    });
    expect(day.pullRequests.merged[0]).toMatchObject({
      subject: 'Codertocat/Hello-World#2',
      tickets: ['ENG-12'],
    });
    expect(day.pullRequests.reviewed[0]?.state).toBe('commented');
    expect(day.ticketsUpdated[0]).toMatchObject({
      ticketId: 'ENG-12',
      changes: [{ field: 'status', from: 'In Progress', to: 'In Review' }],
    });
    expect(day.tickets).toEqual(expect.arrayContaining(['ENG-12', 'OPS-3']));
    expect(day.summaryText).toContain('Standup for alice on 2019-05-15 (UTC)');
    expect(day.summaryText).toMatch(/Merged: Codertocat\/Hello-World#2 .*\[ENG-12\]/);
    expect(day.summaryText).toContain('Pushed 2 commits in 1 push');
    expect(day.summaryText).toContain('Updated tickets: ENG-12 (status: In Progress → In Review)');
    const empty = await standup.summarize(TENANT, 'alice', '2019-05-16');
    expect(empty.totals.pushes).toBe(0);
    expect(empty.summaryText).toContain('No recorded activity.');
  });

  it('counts activity on the user’s local day, not the UTC day', async () => {
    const store = new InMemoryWorkTrackingStore();
    // 23:30 on June 1 in Los Angeles is June 2 in UTC.
    const late = makeActivity({
      tenantId: TENANT,
      userId: 'bob',
      kind: 'push',
      occurredAt: '2025-06-02T06:30:00.000Z',
      detail: { commits: 1 },
    });
    const early = makeActivity({
      tenantId: TENANT,
      userId: 'bob',
      kind: 'pr_opened',
      occurredAt: '2025-06-01T06:59:59.000Z',
    });
    await store.recordDelivery({
      delivery: makeDelivery({ tenantId: TENANT }),
      activities: [late, early],
      writes: [],
    });
    const la = new StandupService({ store, timeZoneOf: async () => 'America/Los_Angeles' });
    const june1 = await la.summarize(TENANT, 'bob', '2025-06-01');
    expect([june1.timeZone, june1.totals.pushes, june1.totals.pullRequestsOpened]).toEqual([
      'America/Los_Angeles',
      1,
      0,
    ]);
    const utc = new StandupService({ store });
    expect((await utc.summarize(TENANT, 'bob', '2025-06-01')).totals).toMatchObject({
      pushes: 0,
      pullRequestsOpened: 1,
    });
  });
});
