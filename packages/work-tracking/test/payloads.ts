/**
 * Real webhook payloads from `@octokit/webhooks-examples` (GitHub's own examples). The package has
 * no merged pull request and no ticket references, so `withTickets` / `merged` edit only the fields
 * the scenario needs (branch, title, body, merged flags) on a copy of a real payload.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const definitions = require('@octokit/webhooks-examples') as {
  name: string;
  examples: Record<string, unknown>[];
}[];

// biome-ignore lint/suspicious/noExplicitAny: payloads are arbitrary JSON
export type Payload = Record<string, any>;

/** Every example of an event (deep copies). */
export function examples(event: string): Payload[] {
  const d = definitions.find((x) => x.name === event);
  if (!d) throw new Error(`no examples for ${event}`);
  return d.examples.map((e) => structuredClone(e) as Payload);
}

/** The first example of an event with `action` (and, for pull requests, any predicate). */
export function example(
  event: string,
  action?: string,
  where: (p: Payload) => boolean = () => true,
): Payload {
  const p = examples(event).find((e) => (action === undefined || e.action === action) && where(e));
  if (!p) throw new Error(`no ${event}.${action} example`);
  return p;
}

/** The real `pull_request.closed` example, turned into a merge of a branch that names tickets. */
export function mergedPullRequest(
  opts: { branch?: string; title?: string; body?: string; mergedAt?: string } = {},
): Payload {
  const p = example('pull_request', 'closed');
  const pr = p.pull_request;
  pr.merged = true;
  pr.merged_at = opts.mergedAt ?? pr.closed_at ?? '2019-05-15T15:20:33Z';
  pr.merged_by = p.sender;
  pr.head.ref = opts.branch ?? 'feature/ENG-12-readme';
  pr.title = opts.title ?? `${pr.title} (ENG-12)`;
  if (opts.body !== undefined) pr.body = opts.body;
  return p;
}

/** The real `pull_request.opened` example with a branch that names tickets. */
export function openedPullRequest(branch = 'feature/ENG-12-readme'): Payload {
  const p = example('pull_request', 'opened');
  p.pull_request.head.ref = branch;
  return p;
}

/** A real branch push (the example pushes `refs/heads/master`). */
export function branchPush(messages?: string[]): Payload {
  const p = example('push', undefined, (e) => String(e.ref).startsWith('refs/heads/'));
  if (messages) {
    const template = p.commits[0];
    p.commits = messages.map((message, i) => ({ ...template, id: `${i}`.padStart(40, 'a'), message }));
    p.head_commit = { ...p.head_commit, message: messages.at(-1) };
  }
  return p;
}

/** A Jira-style `jira:issue_updated` body (Jira publishes no example package; shape from its docs). */
export function jiraIssueUpdated(
  key = 'ENG-12',
  accountId = 'acc-alice',
  timestamp = Date.parse('2019-05-15T15:30:00Z'),
): Payload {
  return {
    timestamp,
    webhookEvent: 'jira:issue_updated',
    issue_event_type_name: 'issue_generic',
    user: { accountId, displayName: 'Alice', emailAddress: 'alice@example.com' },
    issue: {
      id: '10002',
      key,
      self: 'https://tracker.example.com/rest/api/2/issue/10002',
      fields: { summary: 'Update the README' },
    },
    changelog: {
      id: '10105',
      items: [
        {
          field: 'status',
          fieldtype: 'jira',
          from: '3',
          fromString: 'In Progress',
          to: '10001',
          toString: 'In Review',
        },
      ],
    },
  };
}
