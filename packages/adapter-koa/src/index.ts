/**
 * @agentgov/adapter-koa — mounts a governance handler on Koa 3. Translation only: with
 * `ctx.respond = false` Koa leaves the response alone (no body streaming, and its default 404
 * never leaks) and the gateway's Node path (`governance.handleNode`) writes it straight on Node's
 * response; what a body parser already read is handed over.
 */
import type { Governance } from '@agentgov/gateway';
import type { Middleware } from 'koa';

export interface KoaMountOptions {
  /** Scheme of the public URL when TLS ends before Koa (default: from the socket). */
  protocol?: 'http' | 'https';
}

/** A Koa middleware serving every request under `governance.basePath`; others go to `next()`. */
export function mount(governance: Governance, options: KoaMountOptions = {}): Middleware {
  const base = governance.basePath;
  const prefix = `${base}/`;
  const { protocol } = options;
  // Not async: the gateway's promise is Koa's (no wrapper promise per request).
  return (ctx, next) => {
    const { path } = ctx;
    if (path !== base && !path.startsWith(prefix)) return next();
    const koaRequest = ctx.request as typeof ctx.request & { rawBody?: string | Uint8Array; body?: unknown };
    ctx.respond = false;
    return governance.handleNode(
      ctx.req,
      ctx.res,
      protocol
        ? { url: ctx.originalUrl, rawBody: koaRequest.rawBody, parsedBody: koaRequest.body, protocol }
        : { url: ctx.originalUrl, rawBody: koaRequest.rawBody, parsedBody: koaRequest.body },
    );
  };
}
