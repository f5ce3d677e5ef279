/** 2xx recordings of sessions, timeline, commits, tags, records, prompts and search, and their checks. */
import { expect } from 'vitest';
import { type Check, DEMO, only, query, S1, S2, S3 } from './common';

export const recordChecks: Record<string, Check> = {
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
