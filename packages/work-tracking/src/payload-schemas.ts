/**
 * The parts of code-host and tracker payloads that work tracking reads, as loose zod schemas:
 * GitHub, Gitea and Forgejo share the pull-request and push shapes; the tracker is Jira-style.
 * Unknown fields pass through; a missing needed field fails the parse (→ 400).
 */
import { z } from 'zod';

const User = z.looseObject({ login: z.string().min(1) });
const Repo = z.looseObject({ full_name: z.string().min(1) });
const PullRequest = z.looseObject({
  number: z.number().int(),
  title: z.string(),
  body: z.string().nullable().optional(),
  html_url: z.string().default(''),
  merged: z.boolean().nullable().optional(),
  merged_at: z.string().nullable().optional(),
  created_at: z.string().optional(),
  updated_at: z.string().optional(),
  closed_at: z.string().nullable().optional(),
  user: User,
  merged_by: User.nullable().optional(),
  head: z.looseObject({ ref: z.string() }),
  base: z.looseObject({ ref: z.string() }).optional(),
  /** Not in GitHub's payload; taken when a sender includes the PR's commits. */
  commits: z.unknown().optional(),
});
export const PullRequestEvent = z.looseObject({
  action: z.string(),
  pull_request: PullRequest,
  repository: Repo,
  sender: User,
});
export const ReviewEvent = z.looseObject({
  action: z.string(),
  review: z.looseObject({
    user: User,
    state: z.string(),
    submitted_at: z.string().nullable().optional(),
    html_url: z.string().default(''),
  }),
  pull_request: PullRequest,
  repository: Repo,
});
const Commit = z.looseObject({
  id: z.string().optional(),
  message: z.string(),
  timestamp: z.string().optional(),
});
export const PushEvent = z.looseObject({
  ref: z.string(),
  commits: z.array(Commit).default([]),
  head_commit: Commit.nullable().optional(),
  compare: z.string().default(''),
  pusher: z.looseObject({ name: z.string().optional(), login: z.string().optional() }).optional(),
  sender: User,
  repository: Repo,
  deleted: z.boolean().optional(),
});
export const JiraEvent = z.looseObject({
  webhookEvent: z.string(),
  timestamp: z.number().optional(),
  user: z
    .looseObject({
      accountId: z.string().optional(),
      name: z.string().optional(),
      emailAddress: z.string().optional(),
      displayName: z.string().optional(),
    })
    .optional(),
  issue: z.looseObject({
    key: z.string().min(1),
    self: z.string().optional(),
    fields: z.looseObject({ summary: z.string().optional() }).optional(),
  }),
  changelog: z
    .looseObject({
      items: z
        .array(
          z.looseObject({
            field: z.string(),
            fromString: z.string().nullable().optional(),
            toString: z.string().nullable().optional(),
          }),
        )
        .default([]),
    })
    .optional(),
});
