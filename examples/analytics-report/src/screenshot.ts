/**
 * Renders the HTML report from the recorded fixtures and takes the README's screenshot with headless
 * Chromium (playwright-core drives the system browser; nothing is downloaded).
 *
 *   apt-get install -y chromium   # Debian; or set CHROMIUM=/path/to/chrome
 *   pnpm --filter @agentgov/example-analytics-report screenshot [-- out.png]
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { loadChartLibrary } from './chart-library';
import { loadReportData } from './data';
import { fixtureClient } from './fixture-client';
import { renderHtmlReport } from './html';

const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
const out =
  process.argv.slice(2).find((a) => a !== '--') ?? join(import.meta.dirname, '..', 'docs', 'report.png');

async function main(): Promise<void> {
  if (!existsSync(executablePath)) {
    throw new Error(`No browser at ${executablePath}: apt-get install -y chromium, or set CHROMIUM`);
  }
  const data = await loadReportData(fixtureClient(), 30);
  const html = renderHtmlReport(data, {
    library: loadChartLibrary(),
    source: 'the recorded fixtures (packages/analytics-client/test/fixtures/session-analytics)',
    generatedAt: new Date('2026-11-22T13:15:00Z'),
  });
  const dir = mkdtempSync(join(tmpdir(), 'analytics-report-'));
  const file = join(dir, 'report.html');
  writeFileSync(file, html);
  const browser = await chromium.launch({ executablePath });
  try {
    const page = await browser.newPage({ viewport: { width: 1100, height: 800 }, deviceScaleFactor: 1 });
    const blocked: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith('file:')) blocked.push(r.url());
    });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector('body[data-charts-ready="true"]', { timeout: 10_000 });
    if (errors.length > 0 || blocked.length > 0) {
      throw new Error(`The report is not self-contained or fails: ${[...errors, ...blocked].join('; ')}`);
    }
    await page.screenshot({ path: out, fullPage: true });
    console.log(`wrote ${out}`);
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
