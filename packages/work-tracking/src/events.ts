/**
 * Inbound events, normalized: what a code-host or tracker payload means for work tracking (the
 * payload schemas are in `payload-schemas.ts`).
 */
import { type ActivityKind, MAX_INSTANT_MS, MIN_INSTANT_MS } from '@agentgov/core';
import { z } from 'zod';
import type { TrackerIntegration } from './integrations';
import { userOf } from './integrations';
import { JiraEvent, PullRequestEvent, PushEvent, ReviewEvent } from './payload-schemas';
import { extractTickets, trackerLinkLines } from './tickets';

/** One activity an event records, before ids and tenant are assigned. */
export interface ActivityDraft {
  kind: ActivityKind;
  /** The external account (login, accountId…) and the agentgov user it maps to. */
  userId: string;
  occurredAt: string;
  subject: string;
  title: string;
  url: string;
  tickets: string[];
  detail: Record<string, unknown>;
}

export type ParsedEvent =
  | { kind: 'ping' }
  | { kind: 'ignored'; reason: string }
  | {
      kind: 'activity';
      /** `pull_request.closed`, `push`, `jira:issue_updated`, … */
      action: string;
      activities: ActivityDraft[];
      /** Present when a pull request was merged: the tickets to write to. */
      merged?: {
        tickets: string[];
        repository: string;
        number: number;
        title: string;
        url: string;
        branch: string;
        mergedBy: string;
      };
    };

/** Thrown for a payload that lacks a field the event needs (mapped to 400 by the route). */
export class PayloadError extends Error {
  override readonly name = 'PayloadError';
  constructor(
    message: string,
    readonly issues: z.core.$ZodIssue[],
  ) {
    super(message);
  }
}

function parse<T extends z.ZodType>(schema: T, payload: unknown, what: string): z.infer<T> {
  const r = schema.safeParse(payload);
  if (!r.success) throw new PayloadError(`the payload is not a valid ${what} event`, r.error.issues);
  return r.data;
}

/**
 * The ISO 8601 text of a payload's time (text, or milliseconds since the epoch), else `fallback`:
 * also for a time outside the years 0001–9999, which `toISOString` and the database refuse (a
 * signed payload is the sender's to fill).
 */
function iso(value: string | number | null | undefined, fallback: string): string {
  const t = typeof value === 'number' ? value : value ? Date.parse(value) : Number.NaN;
  return Number.isFinite(t) && t >= MIN_INSTANT_MS && t <= MAX_INSTANT_MS
    ? new Date(t).toISOString()
    : fallback;
}

function commitMessages(commits: unknown): string[] {
  if (!Array.isArray(commits)) return [];
  return commits.flatMap((c) => {
    if (typeof c === 'string') return [c];
    const m = (c as { message?: unknown; commit?: { message?: unknown } } | null) ?? {};
    const msg = typeof m.message === 'string' ? m.message : m.commit?.message;
    return typeof msg === 'string' ? [msg] : [];
  });
}

const REVIEW_EVENTS = new Set([
  'pull_request_review',
  'pull_request_approved',
  'pull_request_rejected',
  'pull_request_review_approved',
  'pull_request_review_rejected',
  'pull_request_review_comment',
]);

export interface CodehostContext {
  /** The tracker's project keys (`undefined`: any key; empty: no tracker, no tickets). */
  projectKeys: readonly string[] | undefined;
  trackerName: string;
  users: Record<string, string>;
  now: Date;
}

/** What decides whether an event is tracked at all, read before the fields it needs (see below). */
const Action = z.looseObject({ action: z.string() });
const PushRef = z.looseObject({ ref: z.string(), deleted: z.boolean().optional() });
const TrackerEventName = z.looseObject({ webhookEvent: z.string() });
const TRACKED_PR_ACTIONS = ['opened', 'reopened', 'closed'];

/**
 * A code-host event (GitHub, Gitea, Forgejo) by its event header value. An event or action that is
 * not tracked is `ignored` before the fields only tracked ones need are required: a minimal
 * `{action: "labeled"}` is answered 200 ignored, not 400 (the sender would log a failure and retry).
 */
export function parseCodehostEvent(event: string, payload: unknown, c: CodehostContext): ParsedEvent {
  const now = c.now.toISOString();
  if (event === 'ping') return { kind: 'ping' };
  if (event === 'pull_request') {
    const { action } = parse(Action, payload, 'pull_request');
    if (!TRACKED_PR_ACTIONS.includes(action))
      return {
        kind: 'ignored',
        reason: `pull_request action '${action}' is not tracked (opened, reopened, closed are)`,
      };
    const e = parse(PullRequestEvent, payload, 'pull_request');
    const pr = e.pull_request;
    const repository = e.repository.full_name;
    const tickets = extractTickets(
      c.projectKeys,
      pr.head.ref,
      pr.title,
      ...trackerLinkLines(pr.body, c.trackerName),
      ...commitMessages(pr.commits),
    );
    const base = {
      subject: `${repository}#${pr.number}`,
      title: pr.title,
      url: pr.html_url,
      tickets,
      detail: { repository, number: pr.number, branch: pr.head.ref, base: pr.base?.ref ?? null },
    };
    if (e.action === 'opened' || e.action === 'reopened') {
      const userId = userOf(c.users, pr.user.login) as string;
      const at = e.action === 'opened' ? iso(pr.created_at, now) : iso(pr.updated_at, now);
      return {
        kind: 'activity',
        action: `pull_request.${e.action}`,
        activities: [{ ...base, kind: 'pr_opened', userId, occurredAt: at }],
      };
    }
    // closed (the only action left)
    const merged = pr.merged === true || (pr.merged === undefined && !!pr.merged_at);
    const actor = merged ? (pr.merged_by?.login ?? e.sender.login) : e.sender.login;
    const userId = userOf(c.users, actor) as string;
    const at = iso(merged ? pr.merged_at : pr.closed_at, now);
    const activities: ActivityDraft[] = [
      { ...base, kind: merged ? 'pr_merged' : 'pr_closed', userId, occurredAt: at },
    ];
    if (!merged) return { kind: 'activity', action: 'pull_request.closed', activities };
    return {
      kind: 'activity',
      action: 'pull_request.merged',
      activities,
      merged: {
        tickets,
        repository,
        number: pr.number,
        title: pr.title,
        url: pr.html_url,
        branch: pr.head.ref,
        mergedBy: actor,
      },
    };
  }
  if (REVIEW_EVENTS.has(event)) {
    const { action } = parse(Action, payload, event);
    if (action !== 'submitted' && event === 'pull_request_review')
      return {
        kind: 'ignored',
        reason: `pull_request_review action '${action}' is not tracked (submitted is)`,
      };
    const e = parse(ReviewEvent, payload, event);
    const pr = e.pull_request;
    const repository = e.repository.full_name;
    return {
      kind: 'activity',
      action: `${event}.${e.action}`,
      activities: [
        {
          kind: 'pr_reviewed',
          userId: userOf(c.users, e.review.user.login) as string,
          occurredAt: iso(e.review.submitted_at, now),
          subject: `${repository}#${pr.number}`,
          title: pr.title,
          url: e.review.html_url || pr.html_url,
          tickets: extractTickets(
            c.projectKeys,
            pr.head.ref,
            pr.title,
            ...trackerLinkLines(pr.body, c.trackerName),
          ),
          detail: {
            repository,
            number: pr.number,
            state: e.review.state.toLowerCase(),
            author: pr.user.login,
          },
        },
      ],
    };
  }
  if (event === 'push') {
    const { ref, deleted } = parse(PushRef, payload, 'push');
    if (!ref.startsWith('refs/heads/'))
      return { kind: 'ignored', reason: `push to ${ref} is not a branch push` };
    if (deleted) return { kind: 'ignored', reason: `push deleted ${ref}` };
    const e = parse(PushEvent, payload, 'push');
    const branch = e.ref.slice('refs/heads/'.length);
    const messages = e.commits.map((x) => x.message);
    const repository = e.repository.full_name;
    const actor = e.sender.login;
    const last = e.head_commit?.timestamp ?? e.commits.at(-1)?.timestamp;
    return {
      kind: 'activity',
      action: 'push',
      activities: [
        {
          kind: 'push',
          userId: userOf(c.users, actor, e.pusher?.login, e.pusher?.name) as string,
          occurredAt: iso(last, now),
          subject: `${repository}@${branch}`,
          title: e.head_commit?.message.split('\n')[0] ?? messages.at(-1)?.split('\n')[0] ?? '',
          url: e.compare,
          tickets: extractTickets(c.projectKeys, branch, ...messages),
          detail: { repository, branch, commits: e.commits.length },
        },
      ],
    };
  }
  return {
    kind: 'ignored',
    reason: `event '${event}' is not tracked (ping, pull_request, pull_request_review, push are)`,
  };
}

/**
 * A tracker event (Jira-style body with `webhookEvent`). Events other than `jira:issue_updated`
 * (sprint, project, user, version events carry no `issue`) are ignored before `issue` is required.
 */
export function parseTrackerEvent(payload: unknown, tracker: TrackerIntegration, now: Date): ParsedEvent {
  const { webhookEvent } = parse(TrackerEventName, payload, 'tracker');
  if (webhookEvent !== 'jira:issue_updated')
    return {
      kind: 'ignored',
      reason: `tracker event '${webhookEvent}' is not tracked (jira:issue_updated is)`,
    };
  const e = parse(JiraEvent, payload, 'tracker');
  const key = e.issue.key;
  if (extractTickets(tracker.projectKeys, key)[0] !== key)
    return {
      kind: 'ignored',
      reason: tracker.projectKeys
        ? `ticket ${key} is not in a configured project (${tracker.projectKeys.join(', ')})`
        : `${key} is not a ticket reference ({PROJECT}-{NUMBER})`,
    };
  const u = e.user ?? {};
  const userId = userOf(tracker.users, u.accountId, u.name, u.emailAddress, u.displayName);
  if (!userId) return { kind: 'ignored', reason: 'the event names no user' };
  const changes = (e.changelog?.items ?? []).map((i) => ({
    field: i.field,
    from: i.fromString ?? null,
    to: i.toString ?? null,
  }));
  const base = tracker.baseUrl ? tracker.baseUrl.replace(/\/+$/, '') : '';
  return {
    kind: 'activity',
    action: 'jira:issue_updated',
    activities: [
      {
        kind: 'ticket_updated',
        userId,
        occurredAt: iso(e.timestamp, now.toISOString()),
        subject: key,
        title: e.issue.fields?.summary ?? '',
        url: base ? `${base}/browse/${key}` : '',
        tickets: [key],
        detail: { changes },
      },
    ],
  };
}
