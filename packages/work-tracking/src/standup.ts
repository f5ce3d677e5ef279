/**
 * The standup summary of one user for one calendar day in their time zone, from recorded activity
 * (pull requests opened, merged, closed, reviewed; pushes; tickets updated): a structured answer
 * and a readable `summaryText`.
 */
import type { WorkActivity, WorkTrackingStore } from '@agentgov/core';
import { dayBounds } from './time-zone';

export interface StandupPullRequest {
  subject: string;
  title: string;
  url: string;
  tickets: string[];
  at: string;
}
export interface StandupReview extends StandupPullRequest {
  state: string;
}
export interface StandupPush {
  repository: string;
  branch: string;
  commits: number;
  headline: string;
  tickets: string[];
  at: string;
}
export interface StandupTicketUpdate {
  ticketId: string;
  title: string;
  url: string;
  changes: { field: string; from: string | null; to: string | null }[];
  at: string;
}

export interface StandupSummary {
  userId: string;
  date: string;
  timeZone: string;
  /** The day's bounds in UTC: from <= activity < to. */
  from: string;
  to: string;
  pullRequests: {
    opened: StandupPullRequest[];
    merged: StandupPullRequest[];
    closed: StandupPullRequest[];
    reviewed: StandupReview[];
  };
  pushes: StandupPush[];
  ticketsUpdated: StandupTicketUpdate[];
  /** Every ticket the day's activity touched, deduplicated, in order of first appearance. */
  tickets: string[];
  totals: {
    pullRequestsOpened: number;
    pullRequestsMerged: number;
    pullRequestsClosed: number;
    reviews: number;
    pushes: number;
    commits: number;
    ticketsUpdated: number;
  };
  summaryText: string;
}

function pr(a: WorkActivity): StandupPullRequest {
  return { subject: a.subject, title: a.title, url: a.url, tickets: a.tickets, at: a.occurredAt };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Builds the summary from the activities of the day (as the store returns them, in time order). */
export function buildStandup(input: {
  userId: string;
  date: string;
  timeZone: string;
  from: Date;
  to: Date;
  activities: readonly WorkActivity[];
}): StandupSummary {
  const by = (k: WorkActivity['kind']) => input.activities.filter((a) => a.kind === k);
  const pushes = by('push').map((a) => ({
    repository: String(a.detail.repository ?? a.subject.split('@')[0]),
    branch: String(a.detail.branch ?? ''),
    commits: Number(a.detail.commits ?? 0),
    headline: a.title,
    tickets: a.tickets,
    at: a.occurredAt,
  }));
  const s: Omit<StandupSummary, 'summaryText' | 'totals' | 'tickets'> = {
    userId: input.userId,
    date: input.date,
    timeZone: input.timeZone,
    from: input.from.toISOString(),
    to: input.to.toISOString(),
    pullRequests: {
      opened: by('pr_opened').map(pr),
      merged: by('pr_merged').map(pr),
      closed: by('pr_closed').map(pr),
      reviewed: by('pr_reviewed').map((a) => ({ ...pr(a), state: String(a.detail.state ?? 'commented') })),
    },
    pushes,
    ticketsUpdated: by('ticket_updated').map((a) => ({
      ticketId: a.subject,
      title: a.title,
      url: a.url,
      changes: (a.detail.changes as StandupTicketUpdate['changes'] | undefined) ?? [],
      at: a.occurredAt,
    })),
  };
  const tickets = [...new Set(input.activities.flatMap((a) => a.tickets))];
  const totals = {
    pullRequestsOpened: s.pullRequests.opened.length,
    pullRequestsMerged: s.pullRequests.merged.length,
    pullRequestsClosed: s.pullRequests.closed.length,
    reviews: s.pullRequests.reviewed.length,
    pushes: pushes.length,
    commits: pushes.reduce((n, p) => n + p.commits, 0),
    ticketsUpdated: s.ticketsUpdated.length,
  };
  return { ...s, tickets, totals, summaryText: summaryText({ ...s, tickets, totals }) };
}

function summaryText(s: Omit<StandupSummary, 'summaryText'>): string {
  const lines = [`Standup for ${s.userId} on ${s.date} (${s.timeZone})`];
  const item = (p: StandupPullRequest) =>
    `${p.subject} "${p.title}"${p.tickets.length ? ` [${p.tickets.join(', ')}]` : ''}`;
  if (s.pullRequests.merged.length) lines.push(`- Merged: ${s.pullRequests.merged.map(item).join('; ')}`);
  if (s.pullRequests.opened.length) lines.push(`- Opened: ${s.pullRequests.opened.map(item).join('; ')}`);
  if (s.pullRequests.closed.length)
    lines.push(`- Closed without merging: ${s.pullRequests.closed.map(item).join('; ')}`);
  if (s.pullRequests.reviewed.length)
    lines.push(`- Reviewed: ${s.pullRequests.reviewed.map((r) => `${item(r)} (${r.state})`).join('; ')}`);
  if (s.pushes.length)
    lines.push(
      `- Pushed ${plural(s.totals.commits, 'commit')} in ${plural(s.pushes.length, 'push', 'pushes')}: ${s.pushes
        .map((p) => `${p.repository}@${p.branch}`)
        .filter((v, i, all) => all.indexOf(v) === i)
        .join(', ')}`,
    );
  if (s.ticketsUpdated.length)
    lines.push(
      `- Updated tickets: ${s.ticketsUpdated
        .map(
          (t) =>
            `${t.ticketId}${t.changes.length ? ` (${t.changes.map((c) => `${c.field}: ${c.from ?? '∅'} → ${c.to ?? '∅'}`).join(', ')})` : ''}`,
        )
        .join('; ')}`,
    );
  if (lines.length === 1) lines.push('- No recorded activity.');
  return lines.join('\n');
}

export interface StandupServiceOptions {
  store: Pick<WorkTrackingStore, 'activities'>;
  /** The IANA time zone of a user (default UTC when unknown). */
  timeZoneOf?: (tenantId: string, userId: string) => Promise<string | undefined>;
}

export class StandupService {
  constructor(readonly options: StandupServiceOptions) {}
  /** `date` must be a valid YYYY-MM-DD (the route validates it). */
  async summarize(tenantId: string, userId: string, date: string): Promise<StandupSummary> {
    const timeZone = (await this.options.timeZoneOf?.(tenantId, userId)) ?? 'UTC';
    const { from, to } = dayBounds(date, timeZone);
    const activities = await this.options.store.activities(tenantId, {
      userId,
      from: from.toISOString(),
      to: to.toISOString(),
    });
    return buildStandup({ userId, date, timeZone, from, to, activities });
  }
}
