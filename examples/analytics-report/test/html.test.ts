/**
 * The HTML report, generated from the recorded fixtures and checked structurally (no browser): it is
 * one self-contained file (inlined chart library, no external URL, a CSP), its four charts carry the
 * fixture numbers, user text is escaped, and its in-page script draws every chart (run in a VM with a
 * stand-in `Chart`). The real-browser rendering is the README screenshot (`pnpm screenshot`).
 */
import { runInNewContext } from 'node:vm';
import type { ChartConfiguration } from 'chart.js';
import { describe, expect, it } from 'vitest';
import { type ChartLibrary, loadChartLibrary } from '../src/chart-library';
import { buildCharts } from '../src/charts';
import { type FullReportData, loadReportData } from '../src/data';
import { fixtureClient } from '../src/fixture-client';
import { escapeHtml, renderHtmlReport, scriptJson } from '../src/html';

const library = loadChartLibrary();
const stub: ChartLibrary = { name: 'Stub', version: '0', license: 'MIT', source: '/* chart library */' };
const fixtureData = () => loadReportData(fixtureClient(), 30);

/** The scripts of a page, in order. */
const scripts = (html: string) =>
  [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)].map((m) => ({
    attrs: m[1] ?? '',
    body: m[2] ?? '',
  }));

/** The chart specs embedded in the page. */
function embedded(html: string): Array<{ id: string; config: ChartConfiguration | null }> {
  const data = scripts(html).find((s) => s.attrs.includes('id="report-data"'));
  if (!data) throw new Error('no embedded data');
  return JSON.parse(data.body);
}

describe('HTML report', () => {
  it('is one self-contained file with the chart library inlined and no external references', async () => {
    const html = renderHtmlReport(await fixtureData(), {
      library,
      generatedAt: new Date('2026-11-22T13:15:00Z'),
    });
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain(`/*! Chart.js ${library.version} | MIT License */`);
    expect(library.version).toMatch(/^4\./);
    expect(library.source.length).toBeGreaterThan(100_000);
    expect(library.source).not.toMatch(/<\/script/i);
    expect(library.source).not.toContain('sourceMappingURL');
    expect(html).toContain("default-src 'none'");
    // Nothing to fetch: no src/href attributes, stylesheets, imports or remote URLs outside the library.
    const page = html.replace(library.source, '');
    expect(page).not.toMatch(/\s(src|href)=/i);
    expect(page).not.toMatch(/<link|@import|url\(/i);
    expect(page).not.toMatch(/https?:\/\//);
    expect(html).toContain('Generated 2026-11-22T13:15:00Z');
  });

  it('charts the fixture numbers: daily cost and tokens, model mix, tool error rates, budget status', async () => {
    const html = renderHtmlReport(await fixtureData(), { library: stub });
    const charts = embedded(html);
    expect(charts.map((c) => c.id)).toEqual(['daily', 'models', 'tools', 'budgets']);
    for (const { id } of charts) expect(html).toContain(`<canvas id="chart-${id}" role="img" aria-label="`);
    const [daily, models, tools, budgets] = charts.map((c) => c.config);
    expect(daily?.data.labels).toEqual(['2026-11-21', '2026-11-22']);
    expect(daily?.data.datasets.map((d) => [d.type, d.label, d.data])).toEqual([
      ['bar', 'Cost (USD)', [0.000088, 0.048225]],
      ['line', 'Tokens', [150, 3450]],
    ]);
    expect(models?.type).toBe('doughnut');
    expect(models?.data.labels).toEqual([
      'claude-sonnet-4-5-20250929',
      'claude-opus-4-1-20250805',
      'claude-haiku-4-5',
    ]);
    expect(models?.data.datasets[0]?.data).toEqual([2850, 600, 150]);
    // Bash failed its only call; the rest succeeded. Highest error rate first.
    expect(tools?.data.labels?.[0]).toBe('Bash (1)');
    expect(tools?.data.datasets[0]?.data).toEqual([100, 0, 0, 0, 0, 0, 0]);
    expect(budgets?.data.labels).toEqual([
      'Daily Limit (daily): 96.5% warning',
      'Docs shape (weekly): 0.0% ok',
      'Proj monthly (monthly): 0.5% ok',
    ]);
    expect(budgets?.data.datasets[0]?.backgroundColor).toEqual(['#E69F00', '#009E73', '#009E73']);
    // The same numbers as tables, and the summary cards.
    expect(html).toContain(
      '<td>Daily Limit</td><td>daily</td><td>all projects</td><td>0.0482</td><td>0.05</td><td>96.5%</td><td>warning</td>',
    );
    expect(html).toMatch(
      /<h2>Today<\/h2><dl><div><dt>Sessions<\/dt><dd>2<\/dd><\/div><div><dt>Tokens<\/dt><dd>3\.5K<\/dd>/,
    );
    expect(html).toContain('<dt>Cost</dt><dd>$0.05</dd>');
  });

  it('escapes user-controlled text in the page and in the embedded JSON', async () => {
    const data = await fixtureData();
    const evil = '</script><script>alert(1)</script><b onmouseover="x">';
    const first = data.budgets[0];
    if (!first) throw new Error('fixture has budgets');
    const tampered: FullReportData = { ...data, budgets: [{ ...first, name: evil, project: '<img src=x>' }] };
    const html = renderHtmlReport(tampered, { library: stub, source: 'http://h/?a=<x>' });
    expect(html).not.toContain('<script>alert(1)');
    expect(html).not.toContain('<img src=x>');
    expect(html).not.toContain('<b onmouseover');
    expect(html).toContain(escapeHtml(evil));
    expect(embedded(html)[3]?.config?.data.labels?.[0]).toBe(`${evil} (daily): 96.5% warning`);
    expect(scriptJson('</script><!--\u2028')).toBe('"\\u003c/script>\\u003c!--\\u2028"');
  });

  it('shows a note instead of an empty chart', async () => {
    const data = await fixtureData();
    const html = renderHtmlReport(
      { ...data, daily: [], models: [], tools: [], budgets: [] },
      { library: stub },
    );
    for (const note of [
      'No activity in this period.',
      'No model usage recorded.',
      'No tool calls recorded.',
      'No enabled budgets.',
    ]) {
      expect(html).toContain(`<p class="empty">${note}</p>`);
    }
    expect(html).not.toContain('<canvas');
    expect(embedded(html).every((c) => c.config === null)).toBe(true);
  });

  it('limits the daily chart to the requested days and the tools to the top N', async () => {
    const data = await fixtureData();
    const [daily, , tools] = buildCharts(data, { days: 1, topTools: 3 });
    expect(daily?.config?.data.labels).toEqual(['2026-11-22']);
    expect(tools?.config?.data.labels).toHaveLength(3);
  });

  it('its in-page script draws every chart into its canvas and marks the page ready', async () => {
    const html = renderHtmlReport(await fixtureData(), { library: stub });
    const drawn: Array<{ canvas: string; type: string }> = [];
    const attributes: Record<string, string> = {};
    const elements: Record<string, { id: string; textContent?: string }> = {
      'report-data': {
        id: 'report-data',
        textContent: scripts(html).find((s) => s.attrs.includes('report-data'))?.body,
      },
    };
    for (const id of ['daily', 'models', 'tools', 'budgets']) elements[`chart-${id}`] = { id: `chart-${id}` };
    class Chart {
      static defaults = { animation: true, maintainAspectRatio: true, font: { size: 0 } };
      constructor(canvas: { id: string }, config: ChartConfiguration) {
        drawn.push({ canvas: canvas.id, type: config.type });
      }
    }
    const document = {
      getElementById: (id: string) => elements[id] ?? null,
      body: {
        setAttribute: (k: string, v: string) => {
          attributes[k] = v;
        },
      },
    };
    const setup = scripts(html).at(-1)?.body ?? '';
    runInNewContext(setup, { document, Chart, JSON });
    expect(drawn).toEqual([
      { canvas: 'chart-daily', type: 'bar' },
      { canvas: 'chart-models', type: 'doughnut' },
      { canvas: 'chart-tools', type: 'bar' },
      { canvas: 'chart-budgets', type: 'bar' },
    ]);
    expect(Chart.defaults.animation).toBe(false);
    expect(attributes['data-charts-ready']).toBe('true');
  });
});
