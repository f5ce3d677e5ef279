/** 2xx recordings of the stats endpoints, and their checks. */
import { expect } from 'vitest';
import { type Check, DEMO, only, query, S1 } from './common';

export const statsChecks: Record<string, Check> = {
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
};
