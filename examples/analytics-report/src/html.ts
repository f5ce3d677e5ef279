/**
 * A self-contained HTML usage report: summary figures, four charts drawn by the inlined chart library
 * (see ./charts), and each chart's numbers as a table. One file, no external requests (a CSP forbids
 * them), readable without JavaScript (the tables).
 */
import type { UsageTotals } from '@agentgov/analytics-client';
import type { ChartLibrary } from './chart-library';
import { buildCharts, type ChartOptions, type ChartSpec } from './charts';
import type { FullReportData } from './data';
import { usd } from './render';

export interface HtmlReportOptions extends ChartOptions {
  /** The chart library to inline (see {@link loadChartLibrary}). */
  library: ChartLibrary;
  /** Where the data came from, shown in the header. */
  source?: string;
  generatedAt?: Date;
  title?: string;
}

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON that is safe inside `<script type="application/json">` (no `</script>`, no `<!--`). */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });

function totals(label: string, t: UsageTotals): string {
  const cell = (name: string, value: string) => `<div><dt>${name}</dt><dd>${value}</dd></div>`;
  return `<section class="card"><h2>${escapeHtml(label)}</h2><dl>${cell('Sessions', String(t.sessions))}${cell('Tokens', compact.format(t.tokens))}${cell('Tool calls', String(t.toolCalls))}${cell('Cost', usd(t.cost))}</dl></section>`;
}

function table(rows: string[][]): string {
  const [head = [], ...body] = rows;
  const th = head.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('');
  const tr = body.map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`).join('');
  return `<table><thead><tr>${th}</tr></thead><tbody>${tr}</tbody></table>`;
}

function chartSection(chart: ChartSpec): string {
  const body = chart.config
    ? `<div class="chart"><canvas id="chart-${chart.id}" role="img" aria-label="${escapeHtml(chart.description)}"></canvas></div>`
    : `<p class="empty">${escapeHtml(chart.empty)}</p>`;
  const data =
    chart.table.length > 1 ? `<details><summary>Data</summary>${table(chart.table)}</details>` : '';
  return `<section class="panel" id="${chart.id}"><h2>${escapeHtml(chart.title)}</h2><p class="note">${escapeHtml(chart.description)}</p>${body}${data}</section>`;
}

const STYLE = `
:root{color-scheme:light;font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:#1f2328;background:#f6f8fa}
body{margin:0 auto;max-width:1100px;padding:24px}
header{display:flex;justify-content:space-between;align-items:baseline;flex-wrap:wrap;gap:8px}
h1{font-size:22px;margin:0}h2{font-size:15px;margin:0 0 6px}
.meta{color:#59636e;font-size:13px}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(260px,1fr));gap:12px;margin:16px 0}
.card,.panel{background:#fff;border:1px solid #d1d9e0;border-radius:8px;padding:14px}
dl{display:grid;grid-template-columns:repeat(4,1fr);margin:0}dt{color:#59636e;font-size:12px}dd{margin:0;font-size:20px;font-weight:600}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(480px,1fr));gap:12px}
.chart{position:relative;height:260px}.note{color:#59636e;font-size:12px;margin:0 0 8px}.empty{color:#59636e;font-style:italic}
details{margin-top:8px;font-size:13px}table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:2px 6px;border-bottom:1px solid #eaeef2}
`;

/** The in-page script: draws each embedded configuration into its canvas, then marks the page ready. */
const SETUP = `(function(){
var specs=JSON.parse(document.getElementById('report-data').textContent);
Chart.defaults.animation=false;Chart.defaults.maintainAspectRatio=false;Chart.defaults.font.size=12;
specs.forEach(function(spec){var canvas=document.getElementById('chart-'+spec.id);if(canvas&&spec.config){new Chart(canvas,spec.config);}});
document.body.setAttribute('data-charts-ready','true');
})();`;

export function renderHtmlReport(data: FullReportData, options: HtmlReportOptions): string {
  const charts = buildCharts(data, options);
  const title = options.title ?? 'Session analytics report';
  const generated = (options.generatedAt ?? new Date()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const periodLabel = data.stats.periodLabel === 'today' ? 'Today' : 'Filtered period';
  const source = options.source ? ` from ${escapeHtml(options.source)}` : '';
  const lib = options.library;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<meta name="generator" content="@agentgov/example-analytics-report with ${escapeHtml(`${lib.name} ${lib.version}`)}">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>${escapeHtml(title)}</h1><p class="meta">Generated ${generated}${source} · ${data.stats.activeSessions} active session(s) in the last 15 minutes</p></header>
<div class="cards">${totals(periodLabel, data.stats.period)}${totals('All time', data.stats.total)}</div>
<div class="grid">
${charts.map(chartSection).join('\n')}
</div>
<script id="report-data" type="application/json">${scriptJson(charts.map((c) => ({ id: c.id, config: c.config })))}</script>
<script>/*! ${escapeHtml(`${lib.name} ${lib.version}`)} | ${escapeHtml(lib.license)} License */
${lib.source}</script>
<script>${SETUP}</script>
</body>
</html>
`;
}
