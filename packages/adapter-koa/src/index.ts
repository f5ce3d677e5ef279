/**
 * @agentgov/adapter-koa — mounts a governance handler on Koa 3. Translation only: the response
 * is written by the gateway's Node bridge (`ctx.respond = false`), so Koa's default 404 never leaks.
 */
import { type Governance, sendFetchResponse, toFetchRequest } from '@agentgov/gateway';
import type { Middleware } from 'koa';

export interface KoaMountOptions {
  /** Scheme of the public URL when TLS ends before Koa (default: from the socket). */
  protocol?: 'http' | 'https';
}

/** A Koa middleware serving every request under `governance.basePath`; others go to `next()`. */
export function mount(governance: Governance, options: KoaMountOptions = {}): Middleware {
  const base = governance.basePath;
  return async (ctx, next) => {
    if (ctx.path !== base && !ctx.path.startsWith(`${base}/`)) {
      await next();
      return;
    }
    const koaRequest = ctx.request as typeof ctx.request & { rawBody?: string | Uint8Array; body?: unknown };
    const request = toFetchRequest(ctx.req, ctx.res, {
      url: ctx.originalUrl,
      rawBody: koaRequest.rawBody,
      parsedBody: koaRequest.body,
      ...(options.protocol ? { protocol: options.protocol } : {}),
    });
    const remoteAddress = ctx.req.socket.remoteAddress;
    const response = await governance.handle(request, remoteAddress ? { remoteAddress } : {});
    ctx.status = response.status;
    ctx.respond = false;
    await sendFetchResponse(ctx.res, response);
  };
}
