/** Pure rendering of the usage report: data in, lines of text out (no I/O, no colours by default). */
import type { AnalyticsEvent, BudgetStatus, DailyStat, Stats, ToolStat } from '@agentgov/analytics-client';

export interface ReportData {
  stats: Stats;
  daily: DailyStat[];
  tools: ToolStat[];
  budgets: BudgetStatus[];
}

export interface RenderOptions {
  /** Bar width in characters. Default 30. */
  width?: number;
  /** ANSI colours for budget states. Default false. */
  color?: boolean;
  /** Rows of the daily chart (most recent days). Default 14. */
  days?: number;
  /** Top tools shown. Default 5. */
  topTools?: number;
}

export function usd(value: number): string {
  if (value === 0) return '$0.00';
  if (Math.abs(value) < 0.01) return `$${value.toFixed(4)}`;
  return `$${value.toFixed(2)}`;
}

function tokens(value: number): string {
  if (value >= 1_000_000) return `${(value / 1_000_000).toFixed(1)}M`;
  if (value >= 10_000) return `${(value / 1000).toFixed(1)}k`;
  return String(value);
}

/** A horizontal bar of `value / max` over `width` cells, with eighth-block precision. */
export function bar(value: number, max: number, width: number): string {
  if (!(max > 0) || !(value > 0)) return '';
  const cells = Math.min(1, value / max) * width;
  const full = Math.floor(cells);
  const eighths = Math.round((cells - full) * 8);
  const partial = eighths > 0 && full < width ? (['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'][eighths] ?? '') : '';
  const out = '█'.repeat(full) + partial;
  return out === '' ? '▏' : out;
}

/** A bounded progress bar `[####....]` for a percentage; overflow is marked with `!`. */
export function gauge(percentage: number, width: number): string {
  const filled = Math.max(0, Math.min(width, Math.round((percentage / 100) * width)));
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]${percentage > 100 ? '!' : ''}`;
}

const COLORS: Record<string, string> = { ok: '\x1b[32m', warning: '\x1b[33m', exceeded: '\x1b[31m' };

function renderTotals(stats: Stats): string[] {
  const label = stats.periodLabel === 'today' ? 'Today' : 'Filtered';
  const row = (name: string, t: Stats['period']) =>
    `${name.padEnd(9)} ${String(t.sessions).padStart(8)} ${tokens(t.tokens).padStart(9)} ${String(t.toolCalls).padStart(10)} ${usd(t.cost).padStart(10)}`;
  return [
    `${''.padEnd(9)} ${'sessions'.padStart(8)} ${'tokens'.padStart(9)} ${'tool calls'.padStart(10)} ${'cost'.padStart(10)}`,
    row(label, stats.period),
    row('Total', stats.total),
    `Active sessions (last 15 min): ${stats.activeSessions}`,
  ];
}

function renderDaily(daily: DailyStat[], width: number, days: number): string[] {
  const rows = daily.slice(-days);
  if (rows.length === 0) return ['(no activity)'];
  const max = Math.max(...rows.map((d) => d.cost));
  return rows.map((d) => `${d.date} ${bar(d.cost, max, width).padEnd(width)} ${usd(d.cost)}`);
}

function renderTools(tools: ToolStat[], width: number, top: number): string[] {
  const rows = [...tools]
    .sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .slice(0, top);
  if (rows.length === 0) return ['(no tool calls)'];
  const max = Math.max(...rows.map((t) => t.count));
  const nameWidth = Math.min(28, Math.max(...rows.map((t) => t.name.length)));
  return rows.map(
    (t) =>
      `${t.name.slice(0, nameWidth).padEnd(nameWidth)} ${bar(t.count, max, width).padEnd(width)} ${t.count} (${Math.round(t.successRate * 100)}% ok)`,
  );
}

function renderBudgets(budgets: BudgetStatus[], width: number, color: boolean): string[] {
  if (budgets.length === 0) return ['(no enabled budgets)'];
  return budgets.map((b) => {
    const state = color ? `${COLORS[b.status] ?? ''}${b.status}\x1b[0m` : b.status;
    const scope = b.project ?? 'all projects';
    return `${b.name} (${b.period}, ${scope}) ${gauge(b.percentage, width)} ${b.percentage.toFixed(1)}% ${usd(b.currentSpend)} of ${usd(b.amountUsd)} ${state}`;
  });
}

export function renderReport(data: ReportData, options: RenderOptions = {}): string {
  const width = options.width ?? 30;
  const section = (title: string, lines: string[]) => [title, '-'.repeat(title.length), ...lines, ''];
  return [
    ...section('Usage', renderTotals(data.stats)),
    ...section('Daily cost', renderDaily(data.daily, width, options.days ?? 14)),
    ...section('Top tools', renderTools(data.tools, width, options.topTools ?? 5)),
    ...section('Budgets', renderBudgets(data.budgets, width, options.color ?? false)),
  ].join('\n');
}

/** One line per live event. */
export function renderEvent(event: AnalyticsEvent, now: Date = new Date()): string {
  const time = now.toISOString().slice(11, 19);
  const session = (id: string | null) => (id ? id.slice(0, 8) : '--------');
  switch (event.kind) {
    case 'hook': {
      const head = `${time} ${session(event.sessionId)} ${event.hookEventName}`;
      switch (event.hookEventName) {
        case 'PreToolUse':
        case 'PostToolUse':
          return `${head} ${event.toolName ?? ''}`.trimEnd();
        case 'SubagentStart':
        case 'SubagentStop':
          return `${head} ${event.agentType ?? ''}`.trimEnd();
        case 'Notification':
          return `${head} ${event.message ?? ''}`.trimEnd();
        case 'TaskStart':
        case 'TaskComplete':
        case 'TaskUpdate':
          return `${head} ${event.taskId ?? ''}`.trimEnd();
        default:
          return head;
      }
    }
    case 'transcript':
      return `${time} ${session(event.sessionId)} transcript ${event.type ?? '?'}`;
    case 'unknown_hook':
      return `${time} ${session(event.sessionId)} ${event.hookEventName} (unknown)`;
  }
}
