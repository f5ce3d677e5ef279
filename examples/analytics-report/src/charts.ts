/**
 * The HTML report's charts as Chart.js configurations: plain, JSON-serialisable objects built from
 * the report data (daily cost and tokens, model mix, tool error rates, budget status). The page embeds
 * them as JSON and hands each to `new Chart(canvas, config)`.
 */
import type { ChartConfiguration } from 'chart.js';
import type { FullReportData } from './data';

export interface ChartSpec {
  /** The canvas id. */
  id: 'daily' | 'models' | 'tools' | 'budgets';
  title: string;
  /** What the chart shows, for screen readers (`aria-label`) and as its caption. */
  description: string;
  /** `null` when there is nothing to draw; `empty` is shown instead. */
  config: ChartConfiguration | null;
  empty: string;
  /** The same numbers as a table (header row first). */
  table: string[][];
}

export interface ChartOptions {
  /** Days of the daily chart (most recent). Default 30. */
  days?: number;
  /** Tools shown, highest error rate first. Default 12. */
  topTools?: number;
}

/** Colour-blind-safe palette (Okabe–Ito). */
const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#999999'];
const STATUS_COLORS: Record<string, string> = {
  ok: '#009E73',
  warning: '#E69F00',
  exceeded: '#D55E00',
};

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

function dailyChart(data: FullReportData, days: number): ChartSpec {
  const rows = data.daily.slice(-days);
  return {
    id: 'daily',
    title: 'Daily cost and tokens',
    description: `Cost in USD (bars) and tokens (line) per UTC day, last ${rows.length} day(s) with activity.`,
    empty: 'No activity in this period.',
    table: [
      ['Day', 'Sessions', 'Tokens', 'Cost (USD)'],
      ...rows.map((d) => [d.date, String(d.sessions), String(d.tokens), d.cost.toFixed(4)]),
    ],
    config:
      rows.length === 0
        ? null
        : {
            type: 'bar',
            data: {
              labels: rows.map((d) => d.date),
              datasets: [
                {
                  type: 'bar',
                  label: 'Cost (USD)',
                  data: rows.map((d) => round(d.cost, 6)),
                  backgroundColor: PALETTE[0],
                  yAxisID: 'cost',
                  order: 2,
                },
                {
                  type: 'line',
                  label: 'Tokens',
                  data: rows.map((d) => d.tokens),
                  borderColor: PALETTE[1],
                  backgroundColor: PALETTE[1],
                  yAxisID: 'tokens',
                  order: 1,
                },
              ],
            },
            options: {
              scales: {
                cost: {
                  type: 'linear',
                  position: 'left',
                  beginAtZero: true,
                  title: { display: true, text: 'USD' },
                },
                tokens: {
                  type: 'linear',
                  position: 'right',
                  beginAtZero: true,
                  grid: { drawOnChartArea: false },
                  title: { display: true, text: 'tokens' },
                },
              },
            },
          },
  };
}

function modelChart(data: FullReportData): ChartSpec {
  const rows = [...data.models].filter((m) => m.tokens > 0).sort((a, b) => b.tokens - a.tokens);
  const total = rows.reduce((sum, m) => sum + m.tokens, 0);
  return {
    id: 'models',
    title: 'Model mix',
    description: 'Share of all tokens per model.',
    empty: 'No model usage recorded.',
    table: [
      ['Model', 'Tokens', 'Share', 'Cost (USD)'],
      ...rows.map((m) => [
        m.name,
        String(m.tokens),
        `${((m.tokens / total) * 100).toFixed(1)}%`,
        m.cost.toFixed(4),
      ]),
    ],
    config:
      rows.length === 0
        ? null
        : {
            type: 'doughnut',
            data: {
              labels: rows.map((m) => m.name),
              datasets: [
                {
                  label: 'Tokens',
                  data: rows.map((m) => m.tokens),
                  backgroundColor: rows.map((_, i) => PALETTE[i % PALETTE.length] ?? '#999999'),
                },
              ],
            },
            options: { plugins: { legend: { position: 'right' } } },
          },
  };
}

function toolChart(data: FullReportData, top: number): ChartSpec {
  const rows = data.tools
    .map((t) => ({ name: t.name, count: t.count, errorPct: round((1 - t.successRate) * 100, 1) }))
    .sort((a, b) => b.errorPct - a.errorPct || b.count - a.count || (a.name < b.name ? -1 : 1))
    .slice(0, top);
  return {
    id: 'tools',
    title: 'Tool error rates',
    description: `Share of failed calls per tool (top ${rows.length} by error rate), with the number of calls.`,
    empty: 'No tool calls recorded.',
    table: [['Tool', 'Calls', 'Errors'], ...rows.map((t) => [t.name, String(t.count), `${t.errorPct}%`])],
    config:
      rows.length === 0
        ? null
        : {
            type: 'bar',
            data: {
              labels: rows.map((t) => `${t.name} (${t.count})`),
              datasets: [
                {
                  label: 'Error rate (%)',
                  data: rows.map((t) => t.errorPct),
                  backgroundColor: rows.map((t) =>
                    t.errorPct > 0 ? (STATUS_COLORS.exceeded ?? '') : PALETTE[0],
                  ),
                },
              ],
            },
            options: {
              indexAxis: 'y',
              scales: { x: { min: 0, max: 100, title: { display: true, text: '% of calls failed' } } },
              plugins: { legend: { display: false } },
            },
          },
  };
}

function budgetChart(data: FullReportData): ChartSpec {
  const rows = data.budgets;
  const max = Math.max(100, ...rows.map((b) => b.percentage));
  return {
    id: 'budgets',
    title: 'Budget status',
    description:
      'Spend of each enabled budget as a percentage of its amount (warning from 80%, exceeded from 100%).',
    empty: 'No enabled budgets.',
    table: [
      ['Budget', 'Period', 'Scope', 'Spent (USD)', 'Amount (USD)', 'Used', 'Status'],
      ...rows.map((b) => [
        b.name,
        b.period,
        b.project ?? 'all projects',
        b.currentSpend.toFixed(4),
        b.amountUsd.toFixed(2),
        `${b.percentage.toFixed(1)}%`,
        b.status,
      ]),
    ],
    config:
      rows.length === 0
        ? null
        : {
            type: 'bar',
            data: {
              labels: rows.map((b) => `${b.name} (${b.period}): ${b.percentage.toFixed(1)}% ${b.status}`),
              datasets: [
                {
                  label: 'Used (%)',
                  data: rows.map((b) => round(b.percentage, 2)),
                  backgroundColor: rows.map((b) => STATUS_COLORS[b.status] ?? PALETTE[7]),
                },
              ],
            },
            options: {
              indexAxis: 'y',
              scales: {
                x: {
                  min: 0,
                  max: Math.ceil(max / 10) * 10,
                  title: { display: true, text: '% of budget used' },
                },
              },
              plugins: { legend: { display: false } },
            },
          },
  };
}

export function buildCharts(data: FullReportData, options: ChartOptions = {}): ChartSpec[] {
  return [
    dailyChart(data, options.days ?? 30),
    modelChart(data),
    toolChart(data, options.topTools ?? 12),
    budgetChart(data),
  ];
}
