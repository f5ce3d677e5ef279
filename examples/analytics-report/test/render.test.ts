import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEventFrame } from '@agentgov/analytics-client';
import { describe, expect, it } from 'vitest';
import { FIXTURE_DIR as FIXTURES, fixtureClient } from '../src/fixture-client';
import { bar, gauge, renderEvent, renderReport, usd } from '../src/render';

async function fixtureData(budgets = 'budgets_status') {
  const client = fixtureClient({
    '/api/stats': 'stats',
    '/api/stats/daily': 'stats_daily',
    '/api/stats/tools': 'stats_tools',
    '/api/budgets/status': budgets,
  });
  return {
    stats: await client.getStats(),
    daily: await client.getDailyStats(),
    tools: await client.getToolStats(),
    budgets: await client.getBudgetStatus(),
  };
}

describe('report rendering', () => {
  it('renders today vs total, the daily cost chart, top tools and budgets from fixture data', async () => {
    const out = renderReport(await fixtureData(), { width: 20 });
    const lines = out.split('\n');
    expect(lines).toContain('Today            2      3450          6      $0.05');
    expect(lines).toContain('Total            3      3600          7      $0.05');
    expect(lines).toContain('Active sessions (last 15 min): 1');
    // The most expensive day gets the full-width bar; the other a sliver.
    const day22 = lines.find((l) => l.startsWith('2026-11-22'));
    const day21 = lines.find((l) => l.startsWith('2026-11-21'));
    expect(day22).toBe(`2026-11-22 ${'█'.repeat(20)} $0.05`);
    expect(day21).toMatch(/^2026-11-21 ▏ {19} \$0\.0001$/);
    // 7 tools with count 1: only the top 5, alphabetically on ties, with success rates.
    const toolStart = lines.indexOf('Top tools') + 2;
    expect(lines.slice(toolStart, toolStart + 5).map((l) => l.split(' ')[0])).toEqual([
      'Bash',
      'Edit',
      'Grep',
      'Read',
      'Skill',
    ]);
    expect(lines[toolStart]).toContain('(0% ok)');
    expect(out).toContain(
      `Daily Limit (daily, all projects) [${'#'.repeat(19)}.] 96.5% $0.05 of $0.05 warning`,
    );
    expect(out).toContain('Proj monthly (monthly, /home/dev/work/demo-proj) [....................] 0.5%');
    expect(out).not.toContain('\x1b[');
  });

  it('colours budget states only when asked', async () => {
    const out = renderReport(await fixtureData(), { color: true });
    expect(out).toContain('\x1b[33mwarning\x1b[0m');
    expect(out).toContain('\x1b[32mok\x1b[0m');
  });

  it('handles empty data', async () => {
    const client = fixtureClient({ '/api/budgets/status': 'budgets_empty' });
    const empty = renderReport({
      stats: (await fixtureData()).stats,
      daily: [],
      tools: [],
      budgets: await client.getBudgetStatus(),
    });
    expect(empty).toContain('(no activity)');
    expect(empty).toContain('(no tool calls)');
    expect(empty).toContain('(no enabled budgets)');
  });

  it('bars and gauges are proportional and bounded', () => {
    expect(bar(5, 10, 10)).toBe('█████');
    expect(bar(0, 10, 10)).toBe('');
    expect(bar(20, 10, 4)).toBe('████');
    expect(gauge(50, 10)).toBe('[#####.....]');
    expect(gauge(150, 4)).toBe('[####]!');
    expect(usd(0.0000875)).toBe('$0.0001');
  });

  it('renders one line per recorded live event', () => {
    const now = new Date('2026-11-22T13:10:00Z');
    const lines = readFileSync(join(FIXTURES, 'ws_messages.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => parseEventFrame(JSON.parse(l)))
      .map((e) => (e ? renderEvent(e, now) : 'invalid'));
    expect(lines.slice(0, 7)).toEqual([
      '13:10:00 33333333 SessionStart',
      '13:10:00 33333333 PreToolUse Bash',
      '13:10:00 11111111 SubagentStart code-reviewer',
      '13:10:00 11111111 SubagentStop code-reviewer',
      '13:10:00 33333333 Notification Claude needs your permission',
      '13:10:00 33333333 TaskStart t1',
      '13:10:00 33333333 Stop',
    ]);
    expect(lines[7]).toBe('13:10:00 11111111 transcript user');
    expect(lines).toHaveLength(16);
  });
});
