/**
 * A loopback HTTP server speaking the parts of the GitHub REST API (also Gitea's, for the
 * repository listing) the scheduled code-host pull uses (CodehostReviewSource), for tests and demos:
 *   GET /search/issues?q=is:pr is:open review-requested:<login>&per_page&page
 *   GET /repos/{owner}/{repo}/pulls?state=open&per_page&page   (with requested_reviewers)
 * over `pulls`; faults can be queued (`status`), and a bearer token can be required.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

interface LoopbackPull {
  repo: string;
  number: number;
  title: string;
  body?: string;
  reviewers: string[];
  closed?: boolean;
}

export interface LoopbackCodehost {
  url: string;
  readonly pulls: LoopbackPull[];
  /** Statuses answered to the next requests, in order, before normal handling resumes. */
  readonly faults: { status: number }[];
  /** Every request received: method, path with query, authorization header. */
  readonly requests: { method: string; url: string; authorization: string | undefined }[];
  close(): Promise<void>;
}

export async function startLoopbackCodehost(options: { token?: string } = {}): Promise<LoopbackCodehost> {
  const pulls: LoopbackPull[] = [];
  const faults: { status: number }[] = [];
  const requests: LoopbackCodehost['requests'] = [];
  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push({
      method: req.method ?? '',
      url: req.url ?? '/',
      authorization: req.headers.authorization,
    });
    const fault = faults.shift();
    if (fault) return send(res, fault.status, { message: `injected ${fault.status}` });
    if (options.token && req.headers.authorization !== `Bearer ${options.token}`)
      return send(res, 401, { message: 'Bad credentials' });
    const perPage = Number(url.searchParams.get('per_page') ?? 30);
    const page = Number(url.searchParams.get('page') ?? 1);
    const paged = <T>(list: T[]) => list.slice((page - 1) * perPage, page * perPage);
    const apiPull = (p: LoopbackPull) => ({
      number: p.number,
      title: p.title,
      body: p.body ?? null,
      html_url: `${loopback.url}/${p.repo}/pull/${p.number}`,
    });
    if (req.method === 'GET' && url.pathname === '/search/issues') {
      const q = url.searchParams.get('q') ?? '';
      const login = /review-requested:(\S+)/.exec(q)?.[1];
      const found = pulls.filter((p) => !p.closed && login !== undefined && p.reviewers.includes(login));
      return send(res, 200, {
        total_count: found.length,
        incomplete_results: false,
        items: paged(found).map((p) => ({
          ...apiPull(p),
          repository_url: `${loopback.url}/repos/${p.repo}`,
          pull_request: { url: `${loopback.url}/repos/${p.repo}/pulls/${p.number}` },
        })),
      });
    }
    const m = /^\/repos\/([^/]+\/[^/]+)\/pulls$/.exec(url.pathname);
    if (req.method === 'GET' && m) {
      const repo = decodeURIComponent(m[1] ?? '');
      const found = pulls.filter((p) => !p.closed && p.repo === repo);
      return send(
        res,
        200,
        paged(found).map((p) => ({
          ...apiPull(p),
          requested_reviewers: p.reviewers.map((login) => ({ login })),
        })),
      );
    }
    return send(res, 404, { message: 'Not Found' });
  });
  const loopback: LoopbackCodehost = {
    url: '',
    pulls,
    faults,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  loopback.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return loopback;
}
