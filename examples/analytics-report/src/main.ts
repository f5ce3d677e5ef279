/**
 * Usage report for a running Session Analytics API server.
 *
 *   pnpm --filter @agentgov/example-analytics-report start -- --url http://127.0.0.1:3000 [--follow]
 */
import { parseArgs } from 'node:util';
import { AnalyticsApiError, AnalyticsClient } from '@agentgov/analytics-client';
import { renderEvent, renderReport } from './render';

const USAGE = `Usage: analytics-report [--url URL] [--days N] [--width N] [--follow] [--no-color]

  --url       server base URL (default http://127.0.0.1:3000, or $ANALYTICS_URL)
  --days      days in the daily cost chart (default 14)
  --width     bar width (default 30)
  --follow    keep running and print live events from /ws
  --no-color  no ANSI colours`;

async function main(): Promise<number> {
  // `pnpm start -- --flag` forwards the `--` separator; drop a leading one.
  const argv = process.argv.slice(2);
  if (argv[0] === '--') argv.shift();
  const { values } = parseArgs({
    args: argv,
    options: {
      url: { type: 'string', default: process.env.ANALYTICS_URL ?? 'http://127.0.0.1:3000' },
      days: { type: 'string', default: '14' },
      width: { type: 'string', default: '30' },
      follow: { type: 'boolean', default: false },
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

  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  const client = new AnalyticsClient({ baseUrl: values.url, timeoutMs: 10_000 });
  const call = { signal: controller.signal };
  const [stats, daily, tools, budgets] = await Promise.all([
    client.getStats({}, call),
    client.getDailyStats({ days: Math.max(days, 1) }, call),
    client.getToolStats(call),
    client.getBudgetStatus(call),
  ]);
  console.log(
    renderReport(
      { stats, daily, tools, budgets },
      { width, days, color: !values['no-color'] && process.stdout.isTTY },
    ),
  );

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
    if (error instanceof AnalyticsApiError) {
      console.error(`analytics-report: ${error.message}`);
      if (error.kind === 'network') console.error('Is the server running? Pass --url.');
    } else {
      console.error(error);
    }
    process.exitCode = 1;
  },
);
