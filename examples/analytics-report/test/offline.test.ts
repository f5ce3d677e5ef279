/**
 * The offline mode: a loopback server over the recorded responses of the real Session Analytics
 * server, read through the real client over HTTP and WebSocket, and the command run as a process
 * with `--offline` and with `ANALYTICS_OFFLINE=1`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnalyticsApiError, AnalyticsClient, type AnalyticsEvent } from '@agentgov/analytics-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadReportData } from '../src/data';
import { FIXTURE_DIR, fixtureClient } from '../src/fixture-client';
import { type OfflineServer, startOfflineServer } from '../src/offline-server';
import { renderReport } from '../src/render';

const EXAMPLE = join(import.meta.dirname, '..');
const recordedFrames = readFileSync(join(FIXTURE_DIR, 'ws_messages.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean);

function report(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    cwd: EXAMPLE,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, NODE_NO_WARNINGS: '1', ANALYTICS_OFFLINE: '', ANALYTICS_URL: '', ...env },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('offline server', () => {
  let server: OfflineServer;
  beforeAll(async () => {
    server = await startOfflineServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers the report over HTTP exactly as the recordings do', async () => {
    const client = new AnalyticsClient({ baseUrl: server.url });
    const overHttp = await loadReportData(client, 14);
    expect(overHttp).toEqual(await loadReportData(fixtureClient(), 14));
    expect(overHttp.stats.period.sessions).toBeGreaterThan(0);
  });

  it("answers other paths with the real server's recorded 404", async () => {
    const client = new AnalyticsClient({ baseUrl: server.url, retry: false });
    const error = await client.listTags().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AnalyticsApiError);
    expect(error).toMatchObject({ status: 404 });
  });

  it('sends every recorded /ws frame to a WebSocket client', async () => {
    const client = new AnalyticsClient({ baseUrl: server.url });
    const controller = new AbortController();
    const seen: AnalyticsEvent[] = [];
    for await (const event of client.events({ signal: controller.signal, reconnect: false })) {
      seen.push(event);
      if (seen.length === recordedFrames.length) break;
    }
    expect(seen.map((e) => e.raw)).toEqual(recordedFrames.map((f) => JSON.parse(f)));
  });
});

describe('analytics-report --offline (a real process)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'analytics-report-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints the report of the recordings and writes the HTML report, exit 0', async () => {
    const html = join(dir, 'report.html');
    const r = report(['--offline', '--no-color', '--html', html]);
    expect(r.status, r.stderr).toBe(0);
    const expected = renderReport(await loadReportData(fixtureClient(), 14), {
      width: 30,
      days: 14,
      color: false,
    });
    expect(r.stdout).toContain(expected);
    expect(r.stderr).toMatch(
      /offline: the recorded responses of a real server .* served at http:\/\/127\.0\.0\.1:\d+/,
    );
    expect(readFileSync(html, 'utf8')).toContain('from the recorded responses (offline)');
  });

  it('ANALYTICS_OFFLINE=1 does the same without the flag', () => {
    const r = report(['--no-color'], { ANALYTICS_OFFLINE: '1' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('Top tools');
  });

  it('--offline with --url is a usage error (exit 2)', () => {
    const r = report(['--offline', '--url', 'http://127.0.0.1:9']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--offline reads the recorded responses; leave out --url');
  });
});
