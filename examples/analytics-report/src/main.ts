/**
 * Usage report for a running Session Analytics API server: terminal text, optionally a
 * self-contained HTML report with charts, optionally live events.
 *
 *   pnpm --filter @agentgov/example-analytics-report start -- --url http://127.0.0.1:3000 [--html report.html] [--follow]
 *   pnpm --filter @agentgov/example-analytics-report start -- --offline [--html report.html] [--follow]
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { AnalyticsApiError, AnalyticsClient, AnalyticsValidationError } from '@agentgov/analytics-client';
import { loadChartLibrary } from './chart-library';
import { loadReportData } from './data';
import { renderHtmlReport } from './html';
import { type OfflineServer, startOfflineServer } from './offline-server';
import { renderEvent, renderReport } from './render';

const USAGE = `Usage: analytics-report [--url URL | --offline] [--days N] [--width N] [--html FILE] [--follow] [--no-color]

  --url       server base URL (default http://127.0.0.1:3000, or $ANALYTICS_URL)
  --offline   no server needed: serve the recorded responses of a real server (in the repository)
              on loopback and report on them (also ANALYTICS_OFFLINE=1)
  --days      days in the daily charts (default 14)
  --width     bar width (default 30)
  --html      also write a self-contained HTML report with charts to FILE
  --follow    keep running and print live events from /ws
  --verbose   log every request, its status and duration, and retries (stderr)
  --no-color  no ANSI colours`;

async function main(): Promise<number> {
  // `pnpm start -- --flag` forwards the `--` separator; drop a leading one.
  const argv = process.argv.slice(2);
  if (argv[0] === '--') argv.shift();
  const { values } = parseArgs({
    args: argv,
    options: {
      url: { type: 'string' },
      offline: { type: 'boolean', default: process.env.ANALYTICS_OFFLINE === '1' },
      days: { type: 'string', default: '14' },
      width: { type: 'string', default: '30' },
      html: { type: 'string' },
      follow: { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
      'no-color': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const days = Number(values.days);
  const width = Number(values.width);
  if (!Number.isInteger(days) || days < 1 || !Number.isInteger(width) || width < 5) {
    console.error(USAGE);
    return 2;
  }
  if (values.offline && values.url !== undefined) {
    console.error('analytics-report: --offline reads the recorded responses; leave out --url');
    return 2;
  }
  let offline: OfflineServer | undefined;
  if (values.offline) {
    offline = await startOfflineServer();
    console.error(
      `offline: the recorded responses of a real server (${offline.dir}), served at ${offline.url}`,
    );
  }
  try {
    return await report(values, days, width, offline);
  } finally {
    await offline?.close();
  }
}

interface Options {
  url?: string | undefined;
  html?: string | undefined;
  follow: boolean;
  verbose: boolean;
  'no-color': boolean;
}

async function report(
  values: Options,
  days: number,
  width: number,
  offline?: OfflineServer,
): Promise<number> {
  const url = offline?.url ?? values.url ?? process.env.ANALYTICS_URL ?? 'http://127.0.0.1:3000';

  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  const client = new AnalyticsClient({
    baseUrl: url,
    timeoutMs: 10_000,
    hooks: values.verbose
      ? {
          onResponse: ({ request, response, durationMs }) =>
            console.error(
              `${request.method} ${request.path} -> ${response.status} (${Math.round(durationMs)} ms)`,
            ),
          onRetry: ({ endpoint, error, delayMs, attempt }) =>
            console.error(
              `${endpoint}: attempt ${attempt} failed (${error.message}); retrying in ${delayMs} ms`,
            ),
        }
      : {},
  });
  const call = { signal: controller.signal };
  const data = await loadReportData(client, days, call);
  console.log(renderReport(data, { width, days, color: !values['no-color'] && process.stdout.isTTY }));
  if (values.html) {
    writeFileSync(
      values.html,
      renderHtmlReport(data, {
        library: loadChartLibrary(),
        source: offline ? 'the recorded responses (offline)' : url,
        days,
      }),
    );
    console.log(`HTML report written to ${values.html}`);
  }

  if (!values.follow) return 0;
  console.log(`Following ${client.wsUrl} (Ctrl-C to stop)`);
  const stream = client.events({ signal: controller.signal });
  stream.on('reconnecting', ({ attempt, delayMs }) =>
    console.error(`connection lost, reconnecting (attempt ${attempt}) in ${delayMs} ms`),
  );
  stream.on('error', (e) => {
    if (e.kind === 'invalid_response') console.error(`skipped a malformed frame: ${e.message}`);
  });
  for await (const event of stream) console.log(renderEvent(event));
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof AnalyticsApiError || error instanceof AnalyticsValidationError) {
      console.error(`analytics-report: ${error.message}`);
      if (error.kind === 'network') console.error('Is the server running? Pass --url.');
    } else {
      console.error(error);
    }
    process.exitCode = 1;
  },
);
