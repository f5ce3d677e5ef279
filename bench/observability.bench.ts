/**
 * `pnpm bench observability`: what the request observers cost per request, in process
 * (`governance.handle(Request)`, no socket), on two kernel routes: `GET /api/v1/livez` (the
 * cheapest route, so the observers' share is as large as it gets) and `GET /api/v1/status`.
 * Baseline: the same kernel without a logger or an observing plugin. Cases add the request log
 * (pino JSON lines into a sink that drops them: with pino's redaction pass on every line, and as
 * the reference server writes them, the flat request line through the twin logger without
 * `redact`), the Prometheus plugin (counter + histogram per request), the OpenTelemetry plugin on
 * the API's no-op tracer (the plugin's own work, no SDK), and all three (the log as the server
 * writes it); the baseline is measured again last, to show the run-to-run spread on this machine.
 */
import {
  type GatewayPlugin,
  InMemoryAuditSink,
  InMemoryOrgDirectory,
  InMemorySecretStore,
  type Logger,
} from '@agentgov/core';
import { createGovernance, createMemoryStores, type Governance } from '@agentgov/gateway';
import { PINO_REDACT, pinoLogger, prometheusMetrics } from '@agentgov/gateway/observability';
import { otelTracing } from '@agentgov/gateway/otel';
import pino from 'pino';
import { type BenchRow, type BenchSuite, measure } from './lib';

function kernel(plugins: GatewayPlugin[], logger?: Logger): Governance {
  return createGovernance({
    plugins,
    ...(logger ? { logger } : {}),
    stores: createMemoryStores(),
    directory: new InMemoryOrgDirectory(),
    secrets: new InMemorySecretStore(),
    audit: new InMemoryAuditSink(),
    oidc: {
      issuer: 'https://idp.example',
      clientId: 'bench',
      clientSecret: 'x',
      redirectUri: 'https://gw/cb',
    },
    // /status is limited per address (300/min): lifted so the bench measures the route, not 429s.
    limits: { rateLimits: { system_status: { points: 1e12, durationSeconds: 60 } } },
  });
}

const drop = { write: () => {} };
const dropLines = () => pinoLogger(pino({ redact: { paths: [...PINO_REDACT] } }, drop));
/**
 * As the reference server logs (`examples/server/src/request-log.ts`): the redacting pino and its
 * twin without `redact` for calls no redaction path can reach (the kernel's flat request line).
 */
const dropLinesTwin = () =>
  pinoLogger(pino({ redact: { paths: [...PINO_REDACT] } }, drop), { unredacted: pino({}, drop) });

function suite(path: string): BenchSuite {
  return {
    name: `request observers: GET /api/v1${path} in process`,
    baseline: 'no observers',
    async run(): Promise<BenchRow[]> {
      const kernels: Record<string, Governance> = {
        'no observers': kernel([]),
        'request log (pino, redaction pass on every line)': kernel([], dropLines()),
        'request log (pino, unredacted twin as the reference server)': kernel([], dropLinesTwin()),
        Prometheus: kernel([prometheusMetrics()]),
        'OpenTelemetry (no-op tracer)': kernel([otelTracing()]),
        'log (twin) + Prometheus + OpenTelemetry': kernel(
          [prometheusMetrics(), otelTracing()],
          dropLinesTwin(),
        ),
        // The baseline measured again last: how far apart two runs of the same case are here.
        'no observers (again)': kernel([]),
      };
      for (const g of Object.values(kernels)) await g.start();
      const url = `http://gw/api/v1${path}`;
      const cases = Object.fromEntries(
        Object.entries(kernels).map(([name, g]) => [
          name,
          async () => {
            const res = await g.handle(new Request(url), { remoteAddress: '127.0.0.1' });
            if (res.status !== 200) throw new Error(`${name}: ${res.status}`);
            await res.arrayBuffer();
          },
        ]),
      );
      try {
        return await measure(cases, { time: 2000, warmupTime: 500, unit: 'request' });
      } finally {
        for (const g of Object.values(kernels)) await g.close();
      }
    },
  };
}

export default [suite('/livez'), suite('/status')];
