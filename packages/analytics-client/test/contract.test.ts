/**
 * Contract tests against the recorded responses of the real server: every success fixture is parsed
 * and checked, every error fixture is mapped to an AnalyticsApiError. The fixture directory is
 * iterated, so a new recording without an entry here fails the suite.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AnalyticsApiError, type AnalyticsClient, AnalyticsValidationError } from '../src';
import {
  FIXTURE_DIR,
  fixtureClient,
  fixtureNames,
  fixtureText,
  loadFixture,
  readAll,
  type TestClient,
} from './helpers';

const S1 = '11111111-aaaa-4bbb-8ccc-000000000001';
const S2 = '22222222-aaaa-4bbb-8ccc-000000000002';
const S3 = '33333333-aaaa-4bbb-8ccc-000000000003';
const DEMO = '/home/dev/work/demo-proj';

type Check = (t: TestClient) => Promise<void>;

const only = (t: TestClient) => {
  expect(t.requests).toHaveLength(1);
  const req = t.requests[0];
  if (!req) throw new Error('no request');
  return req;
};
const query = (t: TestClient) => Object.fromEntries(only(t).url.searchParams);

/** 2xx fixtures: call the method the recording belongs to and check the mapped result. */
const success: Record<string, Check> = {
  budgets: async (t) => {
    const budgets = await t.client.listBudgets();
    expect(budgets.map((b) => b.id)).toEqual([3, 2, 1]);
    expect(budgets[0]).toMatchObject({
      name: 'Proj monthly',
      amountUsd: 10,
      period: 'monthly',
      project: DEMO,
    });
    expect(budgets[1]?.project).toBeNull();
    expect(budgets[2]).toMatchObject({ amountUsd: 0.05, enabled: true, extra: {} });
  },
  budgets_DELETE: async (t) => {
    await expect(t.client.deleteBudget(2)).resolves.toBeUndefined();
    expect(only(t).method).toBe('DELETE');
    expect(only(t).url.pathname).toBe('/api/budgets/2');
  },
  budgets_DELETE_nonexistent: async (t) => {
    await expect(t.client.deleteBudget(999)).resolves.toBeUndefined();
  },
  budgets_POST: async (t) => {
    const b = await t.client.createBudget({ name: 'Daily Limit', period: 'daily', amountUsd: 0.05 });
    expect(b).toEqual({
      id: 1,
      name: 'Daily Limit',
      period: 'daily',
      amountUsd: 0.05,
      project: null,
      enabled: true,
      extra: {},
    });
    expect(only(t).method).toBe('POST');
    expect(JSON.parse(only(t).body ?? '')).toEqual({
      name: 'Daily Limit',
      project_path: '',
      period: 'daily',
      amount_usd: 0.05,
    });
  },
  // Recorded when posting the spec's shape ({amount, project, warning_threshold}): the server ignored
  // `amount` and stored 0, which is why the client sends `amount_usd`.
  budgets_POST_docs_shape: async (t) => {
    const b = await t.client.createBudget({ name: 'Docs shape', period: 'weekly', amountUsd: 5 });
    expect(b.amountUsd).toBe(0);
    expect(JSON.parse(only(t).body ?? '')).toMatchObject({ amount_usd: 5 });
    expect(JSON.parse(only(t).body ?? '')).not.toHaveProperty('amount');
  },
  budgets_POST_project: async (t) => {
    const b = await t.client.createBudget({
      name: 'Proj monthly',
      period: 'monthly',
      amountUsd: 10,
      project: DEMO,
    });
    expect(b).toMatchObject({ id: 3, project: DEMO });
    expect(JSON.parse(only(t).body ?? '')).toMatchObject({ project_path: DEMO });
  },
  budgets_PUT: async (t) => {
    const b = await t.client.updateBudget(1, { name: 'Daily Limit v2', period: 'daily', amountUsd: 1 });
    expect(b).toMatchObject({ id: 1, name: 'Daily Limit v2', amountUsd: 1, enabled: true });
    expect(only(t).method).toBe('PUT');
    expect(JSON.parse(only(t).body ?? '')).toEqual({
      name: 'Daily Limit v2',
      project_path: '',
      period: 'daily',
      amount_usd: 1,
      enabled: true,
    });
  },
  budgets_PUT_nonexistent: async (t) => {
    const b = await t.client.updateBudget(999, { name: 'x', period: 'daily', amountUsd: 1, enabled: false });
    expect(b).toMatchObject({ id: 999, enabled: false });
    expect(JSON.parse(only(t).body ?? '')).toMatchObject({ enabled: false });
  },
  budgets_after: async (t) => {
    expect((await t.client.listBudgets()).map((b) => b.name)).toEqual(['Proj monthly', 'Daily Limit v2']);
  },
  budgets_empty: async (t) => {
    expect(await t.client.listBudgets()).toEqual([]);
  },
  budgets_status: async (t) => {
    const status = await t.client.getBudgetStatus();
    expect(status.map((s) => s.status)).toEqual(['warning', 'ok', 'ok']);
    expect(status[0]).toMatchObject({ id: 1, percentage: 96.45, amountUsd: 0.05, project: null });
    expect(status[0]?.currentSpend).toBeCloseTo(0.048225);
    expect(status[2]?.project).toBe(DEMO);
    expect(only(t).url.pathname).toBe('/api/budgets/status');
  },
  budgets_status_after: async (t) => {
    const status = await t.client.getBudgetStatus();
    expect(status.map((s) => [s.name, s.status])).toEqual([
      ['Daily Limit v2', 'ok'],
      ['Proj monthly', 'ok'],
    ]);
  },
  config: async (t) => {
    const config = await t.client.getConfig();
    expect(config.server).toEqual({ port: 3917, host: '127.0.0.1' });
    expect(config.capture?.metadata?.gitBranch).toBe(true);
    expect(config.capture?.events?.preToolUse).toBe(true);
    expect(config.storage?.databasePath).toBe('/home/dev/.claude-monitor/claude-monitor.db');
    expect(config.storage?.maxDbSizeMb).toBe(0);
    expect(config.cost?.models?.haiku).toEqual({
      input: 0.25,
      output: 1.25,
      cacheRead: 0.03,
      cacheWrite: 0.3,
    });
    expect(config.ui).toEqual({ theme: 'auto', defaultPage: 'dashboard', sessionsPerPage: 50 });
  },
  config_POST: async (t) => {
    const saved = await t.client.saveConfig({
      ui: { theme: 'dark' },
      cost: { models: { 'claude-x': { input: 1, output: 2, cacheRead: 3, cacheWrite: 4 } } },
    });
    expect(saved.ui?.theme).toBe('dark');
    expect(only(t).method).toBe('POST');
    // camelCase fields go back snake_case; model names (map keys) are left alone.
    expect(JSON.parse(only(t).body ?? '')).toEqual({
      ui: { theme: 'dark' },
      cost: { models: { 'claude-x': { input: 1, output: 2, cache_read: 3, cache_write: 4 } } },
    });
  },
  export_csv: async (t) => {
    const file = await t.client.export({ format: 'csv', project: DEMO });
    expect(file.fileName).toBe('claude-monitor-export.zip');
    expect(file.contentType).toBe('application/zip');
    expect(file.contentLength).toBe(1571);
    const bytes = await readAll(file.body);
    expect(bytes.byteLength).toBe(1571);
    expect([bytes[0], bytes[1], bytes[2], bytes[3]]).toEqual([0x50, 0x4b, 0x03, 0x04]); // local file header "PK\3\4"
    expect(query(t)).toEqual({ format: 'csv', project: DEMO });
  },
  export_default: async (t) => {
    const sessions = await t.client.exportSessions();
    expect(sessions.map((s) => s.session.id)).toEqual([S3, S1, S2]);
    expect(sessions[0]?.messages).toEqual([]); // wire: "messages": null
    expect(sessions[0]?.toolCalls).toEqual([]);
    expect(sessions[1]?.session.tags).toEqual(['bugfix', 'auth']);
    expect(sessions[1]?.messages.length).toBeGreaterThan(0);
    // Fields only the export carries (stderr, stdout_preview) stay reachable.
    expect(sessions[1]?.toolCalls[0]?.extra).toHaveProperty('stderr');
    expect(query(t)).toEqual({ format: 'json' });
  },
  export_html: async (t) => {
    const file = await t.client.export({ format: 'html' });
    expect(file.fileName).toBe('claude-monitor-report.html');
    expect(file.contentLength).toBeNull();
    const html = new TextDecoder().decode(await readAll(file.body));
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).toContain('Claude Monitor Export Report');
  },
  export_json: async (t) => {
    const file = await t.client.export({ sessionId: S2 });
    expect(file.fileName).toBe('claude-monitor-export.json');
    const parsed = JSON.parse(new TextDecoder().decode(await readAll(file.body)));
    expect(Array.isArray(parsed)).toBe(true);
    expect(query(t)).toEqual({ format: 'json', session_id: S2 });
    // and the mapped variant over the same recording
    const again = fixtureClient([loadFixture('export_json')]);
    const sessions = await again.client.exportSessions({ sessionId: S2 });
    expect(sessions).toHaveLength(1);
    expect(sessions[0]?.session).toMatchObject({ id: S2, projectName: 'other-app', tags: [] });
    expect(sessions[0]?.messages.map((m) => m.id)).toEqual(['u2-1', 'a2-1']);
    expect(sessions[0]?.toolCalls[0]).toMatchObject({ toolName: 'Grep', success: true });
  },
  'git-sync_POST': async (t) => {
    expect(await t.client.syncGit()).toEqual({ status: 'syncing' });
    expect(only(t).method).toBe('POST');
    expect(only(t).url.search).toBe('');
  },
  'git-sync_POST_session': async (t) => {
    expect(await t.client.syncGit({ sessionId: S1 })).toEqual({ status: 'syncing' });
    expect(query(t)).toEqual({ session_id: S1 });
  },
  messages: async (t) => {
    const messages = await t.client.listMessages({ sessionId: S1, limit: 3 });
    expect(messages.map((m) => m.id)).toEqual(['u-1', 'a-1', 'u-2']);
    expect(messages[0]).toMatchObject({ type: 'user', parentId: null, model: null, stopReason: null });
    expect(messages[1]).toMatchObject({
      model: 'claude-sonnet-4-5-20250929',
      inputTokens: 1200,
      cacheReadTokens: 5000,
    });
    expect(messages[1]?.timestamp?.toISOString()).toBe('2026-11-22T13:00:38.000Z');
    expect(JSON.parse(messages[1]?.contentJson ?? '')).toHaveLength(3);
    expect(query(t)).toEqual({ session_id: S1, limit: '3' });
  },
  messages_default: async (t) => {
    const messages = await t.client.listMessages();
    expect(messages.length).toBeGreaterThan(3);
    expect(messages.every((m) => m.timestamp instanceof Date)).toBe(true);
    expect(only(t).url.search).toBe('');
  },
  messages_type_user: async (t) => {
    const messages = await t.client.listMessages({ sessionId: S1, type: 'user' });
    expect(messages.map((m) => m.type)).toEqual(['user', 'user']);
    expect(query(t)).toEqual({ session_id: S1, type: 'user' });
  },
  prompt_detail: async (t) => {
    const p = await t.client.getPrompt('u-1');
    expect(p).toMatchObject({ id: 'u-1', sessionId: S1, projectName: 'demo-proj', role: 'user' });
    expect(p.response).toEqual({
      preview: "I'll read the test file first.",
      model: 'claude-sonnet-4-5-20250929',
      outputTokens: 300,
    });
    expect(only(t).url.pathname).toBe('/api/prompts/u-1');
  },
  prompts: async (t) => {
    const page = await t.client.listPrompts({ limit: 2 });
    expect(page.total).toBe(5);
    expect(page.prompts.map((p) => p.id)).toEqual(['u-4', 'u-3']);
    expect(page.prompts[0]).toMatchObject({ truncated: false, preview: 'Now write tests for the refactor' });
  },
  search: async (t) => {
    const hits = await t.client.search('login');
    expect(hits.map((m) => m.id)).toEqual(['u-1', 'a-2', 'a-3']);
    expect(query(t)).toEqual({ q: 'login' });
  },
  search_limit: async (t) => {
    expect(await t.client.search('login', { limit: 1 })).toHaveLength(1);
    expect(query(t)).toEqual({ q: 'login', limit: '1' });
  },
  search_noresults: async (t) => {
    expect(await t.client.search('zzzz')).toEqual([]); // wire: {"messages": null}
  },
  search_prefix: async (t) => {
    const hits = await t.client.search('refactor*');
    expect(hits.map((m) => m.id)).toEqual(['u-1', 'u-4', 'a-3']);
    expect(only(t).url.search).toBe('?q=refactor*');
  },
  session_PATCH: async (t) => {
    const r = await t.client.updateSession(S1, { notes: 'fixed login', tags: ['bugfix', ' auth '] });
    expect(r).toEqual({ id: S1, notes: 'fixed login', tags: ['bugfix', 'auth'], extra: {} });
    expect(only(t).method).toBe('PATCH');
    expect(only(t).url.pathname).toBe(`/api/sessions/${S1}`);
    expect(only(t).headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(only(t).body ?? '')).toEqual({ notes: 'fixed login', tags: 'bugfix,auth' });
  },
  session_PATCH_unknown_id: async (t) => {
    const r = await t.client.updateSession('does-not-exist', { notes: 'x' });
    expect(r).toEqual({ id: 'does-not-exist', notes: 'x', tags: [], extra: {} });
    expect(JSON.parse(only(t).body ?? '')).toEqual({ notes: 'x' });
  },
  session_commits: async (t) => {
    const commits = await t.client.getCommits(S1);
    expect(commits).toHaveLength(1);
    expect(commits[0]).toMatchObject({
      hash: '8f88de1ac4a5233703df1dcc9bc855fcaa074d3f',
      message: 'fix: login handler',
      author: 'Dev One',
    });
    expect(commits[0]?.committedAt?.toISOString()).toBe('2026-11-22T13:04:41.000Z');
    expect(only(t).url.pathname).toBe(`/api/sessions/${S1}/commits`);
  },
  session_detail: async (t) => {
    const d = await t.client.getSession(S1);
    expect(d.session).toMatchObject({
      id: S1,
      gitBranch: 'main',
      claudeVersion: '2.0.14',
      tags: [],
      notes: '',
    });
    expect(d.session.endedAt?.toISOString()).toBe('2026-11-22T13:06:38.000Z');
    expect(d.messages).toHaveLength(7);
    expect(d.toolCalls.map((c) => c.toolName)).toEqual([
      'Bash',
      'Read',
      'Edit',
      'Skill',
      'Task',
      'mcp__github__create_issue',
    ]);
    expect(d.toolCalls[0]).toMatchObject({ success: false, durationMs: 2345 });
    expect(d.subagents[0]).toMatchObject({ agentType: 'code-reviewer', description: '' });
  },
  session_timeline: async (t) => {
    const tl = await t.client.getTimeline(S1);
    expect(tl.durationSeconds).toBe(420);
    expect(tl.totalTokens).toBe(3450);
    const kinds = tl.events.map((e) => e.kind);
    expect(kinds.filter((k) => k === 'message')).toHaveLength(7);
    expect(kinds.filter((k) => k === 'tool_call')).toHaveLength(6);
    const compaction = tl.events.find((e) => e.kind === 'compaction');
    expect(compaction).toMatchObject({
      preTokens: 150000,
      postTokens: 20000,
      durationMs: 1500,
      triggerReason: 'auto',
    });
    const spawn = tl.events.find((e) => e.kind === 'agent_spawn');
    expect(spawn).toMatchObject({ agentType: 'code-reviewer' });
    const first = tl.events[0];
    expect(first?.kind === 'message' && first.role).toBe('user');
    expect(tl.events.every((e) => Object.keys(e.extra).length === 0)).toBe(true);
  },
  session_timeline_unknown: async (t) => {
    expect(await t.client.getTimeline('nope')).toEqual({
      durationSeconds: 0,
      totalTokens: 0,
      events: [],
      extra: {},
    });
  },
  sessions: async (t) => {
    const page = await t.client.listSessions();
    expect(page.total).toBe(3);
    expect(page.sessions.map((s) => s.id)).toEqual([S3, S1, S2]);
    // "" on the wire -> null
    expect(page.sessions[0]).toMatchObject({
      claudeVersion: null,
      gitBranch: null,
      entryPoint: null,
      tags: [],
    });
    expect(page.sessions[1]).toMatchObject({
      projectPath: DEMO,
      totalInputTokens: 2500,
      totalCacheReadTokens: 12000,
      permissionMode: 'default',
    });
    expect(page.sessions[1]?.startedAt?.toISOString()).toBe('2026-11-22T12:59:38.000Z');
    expect(only(t).url.pathname).toBe('/api/sessions');
  },
  sessions_badlimit: async (t) => {
    // Recorded with limit=abc: the server falls back to 50. The client refuses such values up front.
    await expect(t.client.listSessions({ limit: Number.NaN })).rejects.toMatchObject({
      name: 'AnalyticsValidationError',
      field: 'limit',
    });
    expect(t.requests).toHaveLength(0);
    expect((await t.client.listSessions()).total).toBe(3);
  },
  sessions_compare: async (t) => {
    const c = await t.client.compareSessions(S1, S2);
    expect(query(t)).toEqual({ a: S1, b: S2 });
    expect(c.deltas.cost).toEqual({ deltaPct: -99.82, trend: 'improving' });
    expect(c.deltas.cacheHitRate?.trend).toBe('worsening');
    expect(c.sessionA.session.tags).toEqual(['bugfix', 'auth']);
    expect(c.sessionA.metrics).toMatchObject({ totalTokens: 3450, toolCalls: 6, durationMinutes: 7 });
    expect(c.sessionA.timeSegments).toMatchObject({ assistantPct: 71, userInputPct: 28.4 });
    expect(c.sessionA.breakdown.agents).toEqual([{ agentType: 'code-reviewer', count: 1, extra: {} }]);
    expect(c.sessionB.breakdown.tools.map((x) => x.name)).toEqual(['Grep']);
  },
  sessions_from_date: async (t) => {
    const page = await t.client.listSessions({ from: '2026-11-22' });
    expect(query(t)).toEqual({ from: '2026-11-22' });
    expect(page.total).toBe(2);
  },
  sessions_limit1_offset1: async (t) => {
    const page = await t.client.listSessions({ limit: 1, offset: 1 });
    expect(query(t)).toEqual({ limit: '1', offset: '1' });
    expect(page).toMatchObject({ total: 3 });
    expect(page.sessions.map((s) => s.id)).toEqual([S1]);
  },
  sessions_limit_huge: async (t) => {
    const page = await t.client.listSessions({ limit: 1_000_000 });
    expect(query(t)).toEqual({ limit: '1000000' });
    expect(page.sessions).toHaveLength(3);
  },
  sessions_limit_neg: async (t) => {
    // Recorded with limit=-1: SQLite treats it as "no limit". The client rejects it instead.
    await expect(t.client.listSessions({ limit: -1 })).rejects.toMatchObject({ field: 'limit' });
    await expect(t.client.listSessions({ offset: -1 })).rejects.toMatchObject({ field: 'offset' });
    expect(t.requests).toHaveLength(0);
    expect((await t.client.listSessions()).sessions).toHaveLength(3);
  },
  sessions_project: async (t) => {
    const page = await t.client.listSessions({ project: DEMO });
    expect(query(t)).toEqual({ project: DEMO });
    expect(page.sessions.every((s) => s.projectPath === DEMO)).toBe(true);
  },
  // Recorded with ?search=...: the spec lists the parameter, the client sends it, the current server
  // ignores it (all three sessions come back). `search()` is the full-text search that works.
  sessions_search_ignored: async (t) => {
    const page = await t.client.listSessions({ search: 'login', model: 'claude-sonnet-4-5' });
    expect(query(t)).toEqual({ search: 'login', model: 'claude-sonnet-4-5' });
    expect(page.total).toBe(3);
    expect(page.sessions[1]?.notes).toBe('fixed login');
  },
  sessions_tag: async (t) => {
    expect(await t.client.listSessions({ tag: 'bugfix' })).toEqual({ sessions: [], total: 0 });
    expect(query(t)).toEqual({ tag: 'bugfix' });
  },
  sessions_tag_after_patch: async (t) => {
    const page = await t.client.listSessions({ tag: 'bugfix' });
    expect(page.sessions[0]?.tags).toEqual(['bugfix', 'auth']);
  },
  // Recorded with to=2026-11-22: a bare day excludes that day (string comparison). The client sends
  // a day as its last second, so asking for "to 2026-11-21" yields exactly this recording's result.
  sessions_to_date: async (t) => {
    const page = await t.client.listSessions({ to: '2026-11-21' });
    expect(query(t)).toEqual({ to: '2026-11-21T23:59:59Z' });
    expect(page.sessions.map((s) => s.id)).toEqual([S2]);
  },
  sessions_to_rfc3339: async (t) => {
    const page = await t.client.listSessions({ to: new Date('2026-11-22T23:59:59.999Z') });
    expect(query(t)).toEqual({ to: '2026-11-22T23:59:59Z' });
    expect(page.total).toBe(3);
  },
  stats: async (t) => {
    const s = await t.client.getStats();
    expect(s.periodLabel).toBe('today');
    expect(s.period).toMatchObject({ sessions: 2, tokens: 3450, toolCalls: 6 });
    expect(s.total).toEqual({ sessions: 3, toolCalls: 7, tokens: 3600, cost: 0.0483125 });
    expect(s.activeSessions).toBe(1);
  },
  'stats_active-sessions': async (t) => {
    const active = await t.client.getActiveSessions();
    expect(active).toHaveLength(1);
    expect(active[0]).toMatchObject({ id: S1, recentToolCalls: 6, gitBranch: 'main' });
    expect(active[0]?.lastActivity?.toISOString()).toBe('2026-11-22T13:02:38.000Z');
  },
  stats_daily: async (t) => {
    const days = await t.client.getDailyStats();
    expect(days.map((d) => [d.date, d.sessions, d.tokens])).toEqual([
      ['2026-11-21', 1, 150],
      ['2026-11-22', 2, 3450],
    ]);
    expect(only(t).url.search).toBe('');
  },
  stats_daily_7: async (t) => {
    expect(await t.client.getDailyStats({ days: 7 })).toHaveLength(2);
    expect(query(t)).toEqual({ days: '7' });
  },
  stats_errors: async (t) => {
    const e = await t.client.getErrorStats();
    expect(e.totalErrors).toBe(1);
    expect(e.errorRate).toBeCloseTo(1 / 7);
    expect(e.errorsByTool).toEqual([{ tool: 'Bash', errors: 1, total: 1, rate: 1, extra: {} }]);
    expect(e.errorTrend.map((p) => p.date)).toEqual(['2026-11-21', '2026-11-22']);
    expect(e.commonErrors).toEqual([]);
  },
  stats_errors_filtered: async (t) => {
    const e = await t.client.getErrorStats({ project: DEMO, from: new Date('2026-11-22T00:00:00Z') });
    expect(query(t)).toEqual({ project: DEMO, from: '2026-11-22T00:00:00Z' });
    expect(e.errorTrend).toHaveLength(1);
  },
  'stats_file-heatmap': async (t) => {
    const h = await t.client.getFileHeatmap({ project: DEMO });
    expect(h.files).toEqual([
      { path: 'src/auth/login.ts', reads: 1, writes: 0, edits: 1, total: 2, extra: {} },
    ]);
    expect(h.directories).toEqual([{ path: 'src/auth', total: 2, extra: {} }]);
    expect(query(t)).toEqual({ project: DEMO });
  },
  stats_filtered: async (t) => {
    const s = await t.client.getStats({ project: DEMO, from: '2026-11-22', to: '2026-11-22' });
    expect(query(t)).toEqual({ project: DEMO, from: '2026-11-22', to: '2026-11-22T23:59:59Z' });
    expect(s.periodLabel).toBe('filtered');
  },
  stats_insights: async (t) => {
    const i = await t.client.getInsights();
    expect(i).toMatchObject({ period: 'daily', from: '2026-10-23', to: '2026-11-22' });
    expect(Object.keys(i.metrics).sort()).toEqual([
      'avgCostPerSession',
      'avgDurationMinutes',
      'avgTokensPerSession',
      'cacheHitRate',
      'errorRate',
      'sessionsPerDay',
      'toolCallsPerSession',
      'totalCost',
    ]);
    expect(i.metrics.sessionsPerDay).toMatchObject({ current: 1.5, trend: 'neutral', previousSeries: [] });
    expect(i.metrics.sessionsPerDay?.series).toEqual([
      { date: '2026-11-21', value: 1 },
      { date: '2026-11-22', value: 2 },
    ]);
  },
  stats_mcp: async (t) => {
    expect(await t.client.getMcpStats()).toEqual([
      { name: 'github', count: 1, tools: [{ name: 'create_issue', count: 1, extra: {} }], extra: {} },
    ]);
  },
  stats_models: async (t) => {
    const models = await t.client.getModelStats();
    expect(models.map((m) => [m.name, m.tokens])).toEqual([
      ['claude-sonnet-4-5-20250929', 2850],
      ['claude-opus-4-1-20250805', 600],
      ['claude-haiku-4-5', 150],
    ]);
  },
  'stats_project-breakdown': async (t) => {
    const b = await t.client.getProjectBreakdown(DEMO);
    expect(query(t)).toEqual({ project: DEMO });
    expect(b.tools.map((x) => x.name)).toEqual(['Task', 'Read', 'Edit', 'Bash']);
    expect(b.skills[0]?.name).toBe('superpowers:test-driven-development');
    expect(b.mcpServers[0]?.tools[0]?.name).toBe('create_issue');
  },
  stats_projects: async (t) => {
    const p = await t.client.getProjectStats();
    expect(p.map((x) => [x.name, x.path, x.sessions])).toEqual([
      ['demo-proj', DEMO, 2],
      ['other-app', '/home/dev/work/other-app', 1],
    ]);
  },
  'stats_prompt-patterns': async (t) => {
    const p = await t.client.getPromptPatterns();
    expect(p.categories.map((c) => c.name)).toEqual(['Bug Fix', 'Refactor', 'Test', 'Explain', 'Config']);
    expect(p.trends).toEqual([
      { date: '2026-11-22', counts: { 'Bug Fix': 1, Refactor: 2, Test: 2 } },
      { date: '2026-11-21', counts: { Config: 1, Explain: 1 } },
    ]);
  },
  'stats_session-breakdown': async (t) => {
    const b = await t.client.getSessionBreakdown(S1);
    expect(query(t)).toEqual({ session_id: S1 });
    expect(b.agents).toEqual([{ agentType: 'code-reviewer', count: 1, extra: {} }]);
  },
  stats_skills: async (t) => {
    expect(await t.client.getSkillStats()).toEqual([
      { name: 'superpowers:test-driven-development', count: 1, extra: {} },
    ]);
  },
  'stats_token-efficiency': async (t) => {
    const e = await t.client.getTokenEfficiency();
    expect(e).toMatchObject({
      avgInputTokensPerMessage: 650,
      cacheSavingsTokens: 12000,
      cacheSavingsUsd: 0.12,
    });
    expect(e.efficiencyByModel.map((m) => m.model)).toEqual([
      'claude-haiku-4-5',
      'claude-opus-4-1-20250805',
      'claude-sonnet-4-5-20250929',
    ]);
  },
  stats_tools: async (t) => {
    const tools = await t.client.getToolStats();
    expect(tools).toHaveLength(7);
    expect(tools[0]).toEqual({ name: 'Bash', count: 1, successRate: 0, extra: {} });
  },
  subagents: async (t) => {
    const s = await t.client.listSubagents();
    expect(s[0]).toMatchObject({ id: 'agent-1', sessionId: S1, agentType: 'code-reviewer' });
    expect(s[0]?.endedAt?.toISOString()).toBe('2026-11-22T13:09:56.000Z');
  },
  subagents_session: async (t) => {
    expect(await t.client.listSubagents({ sessionId: S1 })).toHaveLength(1);
    expect(query(t)).toEqual({ session_id: S1 });
  },
  tags: async (t) => {
    expect(await t.client.listTags()).toEqual([
      { name: 'bugfix', count: 1, extra: {} },
      { name: 'auth', count: 1, extra: {} },
    ]);
  },
  tool_calls: async (t) => {
    const calls = await t.client.listToolCalls({ sessionId: S1 });
    expect(calls).toHaveLength(6);
    expect(calls[0]).toMatchObject({
      id: 'toolu_bash1',
      messageId: 'a-1',
      success: false,
      durationMs: 2345,
      error: '',
    });
    expect(JSON.parse(calls[0]?.toolInput ?? '')).toEqual({ command: 'npm test', description: 'run tests' });
  },
  tool_calls_name: async (t) => {
    const calls = await t.client.listToolCalls({ toolName: 'Bash' });
    expect(calls.map((c) => c.toolName)).toEqual(['Bash']);
    expect(query(t)).toEqual({ tool_name: 'Bash' });
  },
};

interface Failure {
  /** Provokes the recorded answer (through `request()` where the typed method refuses the input). */
  call: (c: AnalyticsClient) => Promise<unknown>;
  endpoint: string;
  /** The typed method's call with the same input: refused before sending, naming `field`. */
  refused?: { call: (c: AnalyticsClient) => Promise<unknown>; field: string };
}

/** Non-2xx fixtures: the call that provokes them, and the endpoint the error must name. */
const failures: Record<string, Failure> = {
  budgets_GET_byid: { call: (c) => c.request('GET', '/api/budgets/1'), endpoint: 'GET /api/budgets/1' },
  budgets_POST_badjson: {
    call: (c) => c.request('POST', '/api/budgets', { body: 'x' }),
    endpoint: 'POST /api/budgets',
  },
  budgets_PUT_badid: {
    call: (c) => c.request('PUT', '/api/budgets/abc', { body: {} }),
    endpoint: 'PUT /api/budgets/abc',
  },
  budgets_status_POST: {
    call: (c) => c.request('POST', '/api/budgets/status'),
    endpoint: 'POST /api/budgets/status',
  },
  config_POST_badjson: {
    call: (c) => c.request('POST', '/api/config', { body: 'b' }),
    endpoint: 'POST /api/config',
  },
  config_PUT: { call: (c) => c.request('PUT', '/api/config', { body: {} }), endpoint: 'PUT /api/config' },
  export_badformat: {
    call: (c) => c.request('GET', '/api/export', { query: { format: 'xml' } }),
    endpoint: 'GET /api/export',
    refused: { call: (c) => c.export({ format: 'xml' as 'json' }), field: 'format' },
  },
  export_empty_filter: { call: (c) => c.export({ project: '/nowhere' }), endpoint: 'GET /api/export' },
  export_nosession: { call: (c) => c.exportSessions({ sessionId: 'nope' }), endpoint: 'GET /api/export' },
  'git-sync_GET': { call: (c) => c.request('GET', '/api/git-sync'), endpoint: 'GET /api/git-sync' },
  prompt_detail_404: { call: (c) => c.getPrompt('nope'), endpoint: 'GET /api/prompts/nope' },
  search_bad_fts: { call: (c) => c.search('"unterminated'), endpoint: 'GET /api/search' },
  search_missing_q: {
    call: (c) => c.request('GET', '/api/search'),
    endpoint: 'GET /api/search',
    refused: { call: (c) => c.search(''), field: 'q' },
  },
  session_DELETE: {
    call: (c) => c.request('DELETE', `/api/sessions/${S1}`),
    endpoint: `DELETE /api/sessions/${S1}`,
  },
  session_PATCH_badjson: {
    call: (c) => c.request('PATCH', `/api/sessions/${S1}`, { body: 'x' }),
    endpoint: `PATCH /api/sessions/${S1}`,
  },
  session_PATCH_tags_array: {
    call: (c) => c.request('PATCH', `/api/sessions/${S1}`, { body: { tags: ['a'] } }),
    endpoint: `PATCH /api/sessions/${S1}`,
  },
  session_detail_404: { call: (c) => c.getSession('nope'), endpoint: 'GET /api/sessions/nope' },
  session_detail_empty: {
    call: (c) => c.request('GET', '/api/sessions/'),
    endpoint: 'GET /api/sessions/',
    refused: { call: (c) => c.getSession(''), field: 'id' },
  },
  sessions_POST: {
    call: (c) => c.request('POST', '/api/sessions', { body: {} }),
    endpoint: 'POST /api/sessions',
  },
  sessions_compare_missing: {
    call: (c) => c.request('GET', '/api/sessions/compare'),
    endpoint: 'GET /api/sessions/compare',
    refused: { call: (c) => c.compareSessions('', S2), field: 'a' },
  },
  stats_POST: { call: (c) => c.request('POST', '/api/stats'), endpoint: 'POST /api/stats' },
  'stats_file-heatmap_missing': {
    call: (c) => c.request('GET', '/api/stats/file-heatmap'),
    endpoint: 'GET /api/stats/file-heatmap',
    refused: { call: (c) => c.getFileHeatmap({ project: '' }), field: 'project' },
  },
  'stats_project-breakdown_missing': {
    call: (c) => c.request('GET', '/api/stats/project-breakdown'),
    endpoint: 'GET /api/stats/project-breakdown',
    refused: { call: (c) => c.getProjectBreakdown(' '), field: 'project' },
  },
  'stats_session-breakdown_missing': {
    call: (c) => c.request('GET', '/api/stats/session-breakdown'),
    endpoint: 'GET /api/stats/session-breakdown',
    refused: { call: (c) => c.getSessionBreakdown(''), field: 'sessionId' },
  },
  stats_unknown: { call: (c) => c.request('GET', '/api/stats/unknown'), endpoint: 'GET /api/stats/unknown' },
  ws_plain_http: { call: (c) => c.request('GET', '/ws'), endpoint: 'GET /ws' },
};

/** 2xx fixtures that are not this API's JSON: the client must refuse them as invalid responses. */
const notApi: Record<string, Failure> = {
  // What a client pointed at the web UI's port/path gets: the dashboard's HTML.
  root_index: { call: (c) => c.getStats(), endpoint: 'GET /api/stats' },
};

/** Fixtures consumed by other suites. */
const elsewhere = new Set(['ws_messages.jsonl']);

describe('fixture coverage', () => {
  it('has an entry for every recorded response, classified by its status', () => {
    const names = fixtureNames();
    expect(names.length).toBeGreaterThan(90);
    const missing = names.filter((n) => !(n in success) && !(n in failures) && !(n in notApi));
    expect(missing).toEqual([]);
    const stale = [...Object.keys(success), ...Object.keys(failures), ...Object.keys(notApi)].filter(
      (n) => !names.includes(n),
    );
    expect(stale).toEqual([]);
    for (const name of names) {
      const ok = loadFixture(name).status < 300;
      expect({ name, ok }).toEqual({ name, ok: name in success || name in notApi });
    }
    for (const file of elsewhere) expect(existsSync(join(FIXTURE_DIR, file))).toBe(true);
  });
});

describe('success fixtures parse and map', () => {
  for (const [name, check] of Object.entries(success)) {
    it(name, async () => {
      await check(fixtureClient([loadFixture(name)]));
    });
  }
});

describe('error fixtures map to AnalyticsApiError', () => {
  for (const [name, { call, endpoint }] of Object.entries(failures)) {
    it(name, async () => {
      const fixture = loadFixture(name);
      const t = fixtureClient([fixture]);
      const error = await call(t.client).then(
        () => {
          throw new Error('expected a rejection');
        },
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(AnalyticsApiError);
      const e = error as AnalyticsApiError;
      expect(e.kind).toBe('http');
      expect(e.status).toBe(fixture.status);
      expect(e.endpoint).toBe(endpoint);
      const text = fixtureText(name);
      const expected = text.trim().startsWith('{')
        ? (JSON.parse(text) as { error: string }).error
        : text.trim();
      expect(e.serverMessage).toBe(expected);
      expect(e.message).toContain(expected);
      expect(e.isNotFound).toBe(fixture.status === 404);
      // Only 429/502/503/504 answers to idempotent requests are retried (default 2 retries); a 500
      // (the recordings' only 5xx: a malformed search query, a failed export) and 4xx never are.
      const method = endpoint.split(' ')[0] ?? '';
      const retried =
        [429, 502, 503, 504].includes(fixture.status) && ['GET', 'PUT', 'DELETE'].includes(method);
      expect(e.attempts).toBe(retried ? 3 : 1);
      expect(t.requests).toHaveLength(retried ? 3 : 1);
    });
  }
});

describe('inputs the server would accept or choke on are refused before sending', () => {
  for (const [name, { refused }] of Object.entries(failures)) {
    if (!refused) continue;
    it(name, async () => {
      const t = fixtureClient([loadFixture(name)]);
      const e = await refused.call(t.client).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(AnalyticsValidationError);
      expect((e as AnalyticsValidationError).field).toBe(refused.field);
      expect(t.requests).toHaveLength(0);
    });
  }
});

describe('non-API responses', () => {
  for (const [name, { call, endpoint }] of Object.entries(notApi)) {
    it(`${name} is an invalid_response`, async () => {
      const t = fixtureClient([loadFixture(name)]);
      const e = await call(t.client).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(AnalyticsApiError);
      expect((e as AnalyticsApiError).kind).toBe('invalid_response');
      expect((e as AnalyticsApiError).status).toBe(200);
      expect((e as AnalyticsApiError).endpoint).toBe(endpoint);
      expect((e as AnalyticsApiError).body).toContain('<!DOCTYPE html>');
      expect(t.requests).toHaveLength(1); // not retried
    });
  }
});
