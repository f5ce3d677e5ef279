/**
 * `@agentgov/gateway/observability`: Prometheus exposition (prom-client) as a gateway plugin, the
 * `Logger` port on pino (structural: pino stays the application's dependency) and the fields of
 * the kernel's request line. Tracing is `@agentgov/gateway/otel`.
 */
export { PINO_REDACT, type PinoLike, type PinoLoggerOptions, pinoLogger, redactionTest } from './pino';
export { type PrometheusOptions, type PrometheusPlugin, prometheusMetrics } from './prometheus';
export { type RequestLogFields, requestLogFields } from './request-log';
