/**
 * Every endpoint row of the spec's table (`spec/session-analytics-api.md`, read at test time) is
 * matched to the client method that calls it, called with every parameter set, and the parameter
 * names the client sends are compared with the names the row lists. A row without a method, a
 * parameter not sent, or an extra one fails. The few places where the real server wins over the
 * spec are listed in `deviations` with their reason.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AnalyticsClient } from '../src';
import { fixtureClient, loadFixture, type RecordedRequest } from './helpers';

/** A copy of the shared spec kept with the fixtures; `SESSION_ANALYTICS_SPEC` reads another. */
const SPEC =
  process.env.SESSION_ANALYTICS_SPEC ??
  join(import.meta.dirname, 'fixtures', 'spec', 'session-analytics-api.md');

interface SpecRow {
  method: string;
  path: string;
  query: string[];
  body: string[];
}

/** Splits on commas outside parentheses: `a (x, y), b` -> [`a (x, y)`, `b`]. */
function splitTop(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(current.trim());
      current = '';
    } else current += ch;
  }
  if (current.trim()) parts.push(current.trim());
  return parts;
}

function specRows(): SpecRow[] {
  const rows: SpecRow[] = [];
  for (const line of readFileSync(SPEC, 'utf8').split('\n')) {
    const m = /^\|\s*(GET|POST|PUT|PATCH|DELETE)\s*\|\s*(\/\S+)\s*\|([^|]*)\|.*\|$/.exec(line);
    if (!m) continue;
    const [, method = '', path = ''] = m;
    const params = (m[3] ?? '').trim();
    const query: string[] = [];
    const body: string[] = [];
    const [queryPart = '', bodyPart] = params.split(/\bbody: /);
    for (const p of splitTop(queryPart)) query.push(p.split(' ')[0] ?? p);
    if (bodyPart !== undefined) {
      if (/^Budget fields|^same as create/.test(bodyPart))
        body.push('name', 'amount', 'period', 'warning_threshold', 'project');
      else if (/^configuration/.test(bodyPart)) body.push('(configuration)');
      else for (const p of splitTop(bodyPart)) body.push(p.split(' ')[0] ?? p);
    }
    rows.push({ method, path, query: query.filter(Boolean), body });
  }
  return rows;
}

const S = 'sess-1';
const budget = { name: 'b', period: 'daily', amountUsd: 1, project: '/p', enabled: true } as const;

/** One call per spec row with every parameter the method offers. */
const calls: Record<string, (c: AnalyticsClient) => Promise<unknown>> = {
  'GET /api/sessions': (c) =>
    c.listSessions({
      project: '/p',
      from: '2026-11-01',
      to: '2026-11-02',
      model: 'm',
      search: 'q',
      limit: 5,
      offset: 5,
    }),
  'GET /api/sessions/{id}': (c) => c.getSession(S),
  'PATCH /api/sessions/{id}': (c) => c.updateSession(S, { notes: 'n', tags: ['a'] }),
  'GET /api/sessions/{id}/timeline': (c) => c.getTimeline(S),
  'GET /api/sessions/{id}/commits': (c) => c.getCommits(S),
  'GET /api/messages': (c) => c.listMessages({ sessionId: S, type: 'user', limit: 5, offset: 5 }),
  'GET /api/tool-calls': (c) => c.listToolCalls({ sessionId: S, toolName: 'Bash', limit: 5, offset: 5 }),
  'GET /api/subagents': (c) => c.listSubagents({ sessionId: S, limit: 5, offset: 5 }),
  'GET /api/stats': (c) => c.getStats({ project: '/p', from: '2026-11-01', to: '2026-11-02' }),
  'GET /api/stats/daily': (c) => c.getDailyStats({ days: 7 }),
  'GET /api/stats/tools': (c) => c.getToolStats(),
  'GET /api/stats/models': (c) => c.getModelStats(),
  'GET /api/stats/projects': (c) => c.getProjectStats(),
  'GET /api/stats/skills': (c) => c.getSkillStats(),
  'GET /api/stats/mcp': (c) => c.getMcpStats(),
  'GET /api/stats/errors': (c) => c.getErrorStats({ project: '/p', from: '2026-11-01', to: '2026-11-02' }),
  'GET /api/stats/token-efficiency': (c) => c.getTokenEfficiency(),
  'GET /api/stats/prompt-patterns': (c) => c.getPromptPatterns(),
  'GET /api/stats/file-heatmap': (c) => c.getFileHeatmap({ project: '/p' }),
  'GET /api/stats/session-breakdown': (c) => c.getSessionBreakdown(S),
  'GET /api/stats/project-breakdown': (c) => c.getProjectBreakdown('/p'),
  'GET /api/budgets': (c) => c.listBudgets(),
  'POST /api/budgets': (c) => c.createBudget(budget),
  'PUT /api/budgets/{id}': (c) => c.updateBudget(3, budget),
  'DELETE /api/budgets/{id}': (c) => c.deleteBudget(3),
  'GET /api/budgets/status': (c) => c.getBudgetStatus(),
  'GET /api/tags': (c) => c.listTags(),
  'POST /api/git-sync': (c) => c.syncGit({ sessionId: S }),
  'GET /api/search': (c) => c.search('login', { limit: 5 }),
  'GET /api/export': (c) =>
    c.export({ format: 'html', project: '/p', from: '2026-11-01', to: '2026-11-02', sessionId: S }),
  'GET /api/config': (c) => c.getConfig(),
  'POST /api/config': (c) => c.saveConfig({ ui: { theme: 'dark' } }),
};

/** Where the recorded real server differs from the spec, the wire follows the server. */
const deviations: Record<string, { body: string[]; why: string }> = {
  'POST /api/budgets': {
    body: ['name', 'project_path', 'period', 'amount_usd'],
    why: 'the server reads amount_usd/project_path (fixture budgets_POST_docs_shape stored 0 for `amount`) and has no warning_threshold',
  },
  'PUT /api/budgets/{id}': {
    body: ['name', 'project_path', 'period', 'amount_usd', 'enabled'],
    why: 'as POST, plus `enabled`, which PUT overwrites (missing = false)',
  },
};

/** A success fixture for each path, so the call resolves (its content is checked elsewhere). */
const answers: Record<string, string> = {
  'GET /api/sessions/{id}': 'session_detail',
  'PATCH /api/sessions/{id}': 'session_PATCH',
  'GET /api/sessions/{id}/timeline': 'session_timeline',
  'GET /api/sessions/{id}/commits': 'session_commits',
  'GET /api/tool-calls': 'tool_calls',
  'GET /api/stats/file-heatmap': 'stats_file-heatmap',
  'GET /api/stats/session-breakdown': 'stats_session-breakdown',
  'GET /api/stats/project-breakdown': 'stats_project-breakdown',
  'GET /api/stats/token-efficiency': 'stats_token-efficiency',
  'GET /api/stats/prompt-patterns': 'stats_prompt-patterns',
  'POST /api/budgets': 'budgets_POST',
  'PUT /api/budgets/{id}': 'budgets_PUT',
  'DELETE /api/budgets/{id}': 'budgets_DELETE',
  'GET /api/budgets/status': 'budgets_status',
  'POST /api/git-sync': 'git-sync_POST_session',
  'GET /api/export': 'export_html',
  'POST /api/config': 'config_POST',
};
function fixtureFor(key: string): string {
  if (answers[key]) return answers[key];
  const [method = '', path = ''] = key.split(' ');
  const name = path.replace(/^\/api\//, '').replace(/\//g, '_');
  return method === 'GET' ? name : `${name}_${method}`;
}

describe('spec endpoint table', () => {
  const rows = existsSync(SPEC) ? specRows() : [];

  it('is read from the spec, all 32 rows', () => {
    expect(existsSync(SPEC)).toBe(true);
    expect(rows).toHaveLength(32);
    expect(Object.keys(calls).sort()).toEqual(rows.map((r) => `${r.method} ${r.path}`).sort());
  });

  for (const row of rows) {
    const key = `${row.method} ${row.path}`;
    it(`${key} sends ${[...row.query, ...row.body].join(', ') || 'no parameters'}`, async () => {
      const call = calls[key];
      if (!call) throw new Error(`no client method for ${key}`);
      const t = fixtureClient([loadFixture(fixtureFor(key))]);
      await call(t.client);
      expect(t.requests).toHaveLength(1);
      const req = t.requests[0] as RecordedRequest;
      expect(req.method).toBe(row.method);
      const pattern = new RegExp(`^${row.path.replace(/\{id\}/g, '[^/]+')}$`);
      expect(req.url.pathname).toMatch(pattern);
      // Query parameters: exactly the spec's names (path ids are not query parameters).
      expect([...req.url.searchParams.keys()].sort()).toEqual([...row.query].sort());
      // Body fields: the spec's names, or the documented deviation.
      const body = req.body === undefined ? [] : Object.keys(JSON.parse(req.body) as object);
      const expected = deviations[key]?.body ?? row.body;
      if (expected.includes('(configuration)')) expect(body.length).toBeGreaterThan(0);
      else expect(body.sort()).toEqual([...expected].sort());
    });
  }
});
