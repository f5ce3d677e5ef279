/** 2xx recordings of budgets, config, export and git sync, and their checks. */
import { expect } from 'vitest';
import { fixtureClient, loadFixture, readAll } from '../helpers';
import { type Check, DEMO, only, query, S1, S2, S3 } from './common';

export const adminChecks: Record<string, Check> = {
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
};
