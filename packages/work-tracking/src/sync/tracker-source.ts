/**
 * Scheduled pull of a tracker connector (Jira-compatible REST v2 search): the open issues
 * assigned to each mapped tracker account,
 *   GET {baseUrl}/rest/api/2/search?jql=assignee = "<account>" AND resolution = Unresolved ORDER BY updated DESC
 *       &fields=summary,description,duedate&startAt=<n>&maxResults=<page>
 * page after page (at most `maxIssues` per account), as ConnectorItems for task discovery: system
 * `tracker`, id the issue key, title `<KEY> <summary>` (so a pull request naming the key
 * correlates with it), the due date as deadline (end of that day, UTC).
 */
import type { ClassificationLevel } from '@agentgov/core';
import { z } from 'zod';
import type { HttpAuth } from '../http-tracker';
import type { ConnectorItem, TaskSource } from '../tasks';
import { parseDate } from '../time-zone';
import { getJson, type PullHttpOptions } from './pull-http';

const SearchPage = z.object({
  startAt: z.number().int().min(0).optional(),
  total: z.number().int().min(0).optional(),
  issues: z.array(
    z.object({
      key: z.string().min(1).max(255),
      fields: z
        .object({
          summary: z.string().nullish(),
          description: z.string().nullish(),
          duedate: z
            .string()
            .refine((d) => parseDate(d) !== undefined, 'not a YYYY-MM-DD date')
            .nullish(),
        })
        .loose(),
    }),
  ),
});

export interface JiraAssignedSourceOptions extends PullHttpOptions {
  baseUrl: string;
  auth?: HttpAuth | undefined;
  /** Tracker account (accountId, name or e-mail) → agentgov user id; one search per account. */
  accounts: Record<string, string>;
  classification?: ClassificationLevel;
  /** Issues per page (default 50). */
  pageSize?: number;
  /** At most this many issues per account (default 500). */
  maxIssues?: number;
}

/** A JQL string literal. */
export const jqlString = (s: string) => `"${s.replace(/["\\]/g, (c) => `\\${c}`)}"`;

export class JiraAssignedSource implements TaskSource {
  readonly #o: JiraAssignedSourceOptions;
  readonly #base: string;
  constructor(options: JiraAssignedSourceOptions) {
    this.#o = options;
    this.#base = options.baseUrl.replace(/\/+$/, '');
  }

  async items(_tenantId: string, options: { signal?: AbortSignal } = {}): Promise<ConnectorItem[]> {
    const out: ConnectorItem[] = [];
    const pageSize = this.#o.pageSize ?? 50;
    const max = this.#o.maxIssues ?? 500;
    for (const [account, userId] of Object.entries(this.#o.accounts)) {
      for (let startAt = 0; startAt < max; ) {
        const url = new URL(`${this.#base}/rest/api/2/search`);
        url.searchParams.set(
          'jql',
          `assignee = ${jqlString(account)} AND resolution = Unresolved ORDER BY updated DESC`,
        );
        url.searchParams.set('fields', 'summary,description,duedate');
        url.searchParams.set('startAt', String(startAt));
        url.searchParams.set('maxResults', String(Math.min(pageSize, max - startAt)));
        const page = await getJson(url, SearchPage, this.#o.auth, { ...this.#o, signal: options.signal });
        for (const issue of page.issues) {
          const f = issue.fields;
          out.push({
            system: 'tracker',
            id: issue.key,
            url: `${this.#base}/browse/${encodeURIComponent(issue.key)}`,
            userId,
            title: `${issue.key} ${f.summary ?? ''}`.trim(),
            description: f.description ?? '',
            deadline: f.duedate ? `${f.duedate}T23:59:59.000Z` : null,
            ...(this.#o.classification ? { classification: this.#o.classification } : {}),
          });
        }
        startAt += page.issues.length;
        if (page.issues.length === 0 || (page.total !== undefined && startAt >= page.total)) break;
      }
    }
    return out;
  }
}
