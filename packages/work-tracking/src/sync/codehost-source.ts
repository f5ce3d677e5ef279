/**
 * Scheduled pull of a code-host connector: the open pull requests awaiting review by each mapped
 * login, as ConnectorItems for task discovery (system `codehost`, id `<owner>/<repo>#<number>`).
 * Two forms of the API:
 * - with `repositories` (GitHub and Gitea/Forgejo alike): for each repository
 *   `GET {apiBaseUrl}/repos/{owner}/{repo}/pulls?state=open&per_page=<n>&page=<p>`, keeping the
 *   pull requests whose `requested_reviewers` include a mapped login;
 * - without (GitHub): for each login
 *   `GET {apiBaseUrl}/search/issues?q=is:pr is:open review-requested:<login>&per_page=<n>&page=<p>`.
 */
import type { ClassificationLevel } from '@agentgov/core';
import { z } from 'zod';
import type { HttpAuth } from '../http-tracker';
import type { ConnectorItem, TaskSource } from '../tasks';
import { getJson, type PullHttpOptions } from './pull-http';

const PullFields = {
  number: z.number().int().min(0),
  title: z.string().max(10_000),
  body: z.string().nullish(),
  html_url: z.string().nullish(),
};
const SearchPage = z.object({
  total_count: z.number().int().min(0).optional(),
  items: z.array(z.object({ ...PullFields, repository_url: z.url() }).loose()),
});
const PullsPage = z.array(
  z
    .object({
      ...PullFields,
      requested_reviewers: z
        .array(z.object({ login: z.string() }).loose())
        .nullish()
        .transform((r) => r ?? []),
    })
    .loose(),
);

export interface CodehostReviewSourceOptions extends PullHttpOptions {
  /** API base, e.g. `https://api.github.com` or `https://gitea.example.com/api/v1`. */
  apiBaseUrl: string;
  auth?: HttpAuth | undefined;
  /** Code-host login → agentgov user id. */
  logins: Record<string, string>;
  /** `owner/repo` names; without, GitHub's search API is used. */
  repositories?: readonly string[] | undefined;
  classification?: ClassificationLevel;
  /** Results per page (default 50); at most `maxPages` pages per query (default 10). */
  pageSize?: number;
  maxPages?: number;
}

export class CodehostReviewSource implements TaskSource {
  readonly #o: CodehostReviewSourceOptions;
  readonly #base: string;
  constructor(options: CodehostReviewSourceOptions) {
    this.#o = options;
    this.#base = options.apiBaseUrl.replace(/\/+$/, '');
  }

  async items(_tenantId: string, options: { signal?: AbortSignal } = {}): Promise<ConnectorItem[]> {
    const out: ConnectorItem[] = [];
    const item = (
      repo: string,
      pr: {
        number: number;
        title: string;
        body?: string | null | undefined;
        html_url?: string | null | undefined;
      },
      userId: string,
    ): ConnectorItem => ({
      system: 'codehost',
      id: `${repo}#${pr.number}`,
      url: pr.html_url ?? '',
      userId,
      title: `Review ${repo}#${pr.number}: ${pr.title}`.slice(0, 255),
      description: pr.body ?? '',
      ...(this.#o.classification ? { classification: this.#o.classification } : {}),
    });
    if (this.#o.repositories && this.#o.repositories.length > 0) {
      for (const repo of this.#o.repositories) {
        await this.#pages(
          `/repos/${repo.split('/').map(encodeURIComponent).join('/')}/pulls`,
          { state: 'open' },
          PullsPage,
          options.signal,
          (page) => {
            for (const pr of page)
              for (const r of pr.requested_reviewers) {
                const userId = this.#o.logins[r.login];
                if (userId) out.push(item(repo, pr, userId));
              }
            return page.length;
          },
        );
      }
      return out;
    }
    for (const [login, userId] of Object.entries(this.#o.logins)) {
      await this.#pages(
        '/search/issues',
        { q: `is:pr is:open review-requested:${login}` },
        SearchPage,
        options.signal,
        (page) => {
          for (const pr of page.items) {
            const repo = new URL(pr.repository_url).pathname.split('/').filter(Boolean).slice(-2).join('/');
            out.push(item(repo, pr, userId));
          }
          return page.items.length;
        },
      );
    }
    return out;
  }

  /** Reads pages 1, 2, … until one comes back short (or `maxPages`); `take` returns a page's length. */
  async #pages<S extends z.ZodType>(
    path: string,
    query: Record<string, string>,
    schema: S,
    signal: AbortSignal | undefined,
    take: (page: z.infer<S>) => number,
  ): Promise<void> {
    const perPage = this.#o.pageSize ?? 50;
    for (let page = 1; page <= (this.#o.maxPages ?? 10); page++) {
      const url = new URL(`${this.#base}${path}`);
      for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
      url.searchParams.set('per_page', String(perPage));
      url.searchParams.set('page', String(page));
      const n = take(await getJson(url, schema, this.#o.auth, { ...this.#o, signal }));
      if (n < perPage) break;
    }
  }
}
