/**
 * `@agentgov/gateway/otel`: OpenTelemetry tracing as a gateway plugin, on `@opentelemetry/api`
 * only (an optional peer: the application brings the SDK and its exporter). One SERVER span per
 * request the kernel answers, a child of the caller's `traceparent` when there is one, named
 * `METHOD /route/{template}` once the route is known, with the HTTP semantic-convention
 * attributes, the request id, the tenant, and an error status for 5xx answers.
 *
 * The span is started on arrival and ended when the response is built; it is not made the active
 * context of the handler (the kernel has no around-hook), so spans a handler's own libraries
 * create are not its children.
 */
import type { GatewayPlugin } from '@agentgov/core';
import {
  context,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type TextMapPropagator,
  type Tracer,
  trace,
} from '@opentelemetry/api';

export interface OtelTracingOptions {
  /** Default: `trace.getTracer('@agentgov/gateway')` of the globally registered provider. */
  tracer?: Tracer;
  /**
   * Reads the caller's trace context from the request headers (default: the globally registered
   * propagator, W3C `traceparent` once an SDK is set up); `null` starts every request a new trace.
   */
  propagator?: TextMapPropagator | null;
}

const headerGetter: TextMapGetter<Headers> = {
  keys: (headers) => [...headers.keys()],
  get: (headers, key) => headers.get(key) ?? undefined,
};

export function otelTracing(options: OtelTracingOptions = {}): GatewayPlugin {
  const tracer = options.tracer ?? trace.getTracer('@agentgov/gateway');
  const propagator = options.propagator === undefined ? propagation : options.propagator;
  return {
    name: 'otel',
    routes: [],
    onRequest(request, requestId) {
      const parent = propagator
        ? propagator.extract(context.active(), request.headers, headerGetter)
        : context.active();
      const span: Span = tracer.startSpan(
        request.method,
        {
          kind: SpanKind.SERVER,
          attributes: { 'http.request.method': request.method, 'agentgov.request_id': requestId },
        },
        parent,
      );
      return (o) => {
        if (o.route) {
          span.updateName(`${o.method} ${o.route}`);
          span.setAttribute('http.route', o.route);
        }
        span.setAttribute('http.response.status_code', o.status);
        if (o.tenantId) span.setAttribute('agentgov.tenant_id', o.tenantId);
        if (o.errorCode) span.setAttribute('error.type', o.errorCode);
        if (o.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      };
    },
  };
}
