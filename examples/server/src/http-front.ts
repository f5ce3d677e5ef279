/**
 * The reference server's HTTP front: the chosen framework (Express, or Koa with
 * `AGENTGOV_FRAMEWORK=koa`) with the gateway mounted through its adapter, and behind it, for
 * everything outside /api/v1, the console's pages (`/` sends a browser there), `/` for an API
 * client (a JSON index of where things are), then the gateway again — so unknown paths get the
 * spec's 404 body rather than a framework page.
 */
import type http from 'node:http';
import type { consoleRoutes } from '@agentgov/console/gateway';
import type { Logger } from '@agentgov/core';
import { type Governance, requestIdFrom, sendFetchResponse, toFetchRequest } from '@agentgov/gateway';
import type { McpPlugin } from '@agentgov/mcp/gateway';
import type { ServerConfig } from './config';

/** The gateway's base path (the kernel's default, which the server keeps). */
const API_BASE = '/api/v1';

/** The error code of an answer of the console or `/` (the request log's `error`), by status. */
const ERROR_CODES: Record<number, string> = {
  404: 'NOT_FOUND',
  405: 'method_not_allowed',
  500: 'internal_error',
  503: 'service_unavailable',
};

/**
 * The request line of an answer given here rather than by the gateway (the console's pages and
 * files, `/`): the fields the kernel writes, with the route template `/` or `/console/{path}` —
 * never the raw path, which can carry identifiers.
 */
function logRequest(
  logger: Logger,
  fields: { requestId: string; method: string; path: string; status: number; started: number },
): void {
  const error = fields.status >= 400 ? ERROR_CODES[fields.status] : undefined;
  const line = {
    requestId: fields.requestId,
    method: fields.method,
    route: fields.path === '/' ? '/' : '/console/{path}',
    status: fields.status,
    durationMs: Math.round((performance.now() - fields.started) * 10) / 10,
    tenantId: null,
    userId: null,
    ...(error ? { error } : {}),
  };
  if (fields.status >= 500) logger.error('request', line);
  else logger.info('request', line);
}

/**
 * The request listener of the server: `framework` with the gateway, then the console and `/`.
 * Only the chosen framework and its adapter are loaded.
 */
export async function frameworkListener(
  framework: ServerConfig['framework'],
  governance: Governance,
  consolePlugin: ReturnType<typeof consoleRoutes>,
  /** The MCP plugin, when it is served: its resource's metadata is also at RFC 9728's place. */
  mcp: Pick<McpPlugin, 'resource' | 'metadataPath'> | undefined,
  /** The log the gateway writes its request lines to: the answers given here get theirs too. */
  logger: Logger,
): Promise<http.RequestListener> {
  // RFC 9728 3.1: the metadata of resource `<origin>/api/v1/mcp` is at
  // `<origin>/.well-known/oauth-protected-resource/api/v1/mcp`, outside the API (MCP clients that
  // build it themselves, without following `WWW-Authenticate`, look there); the plugin serves it
  // below the API's base path: the same answer.
  const metadataPath = mcp && `/.well-known/oauth-protected-resource${new URL(mcp.resource).pathname}`;
  const metadataRequest = (request: Request): Request => {
    if (!mcp || request.method !== 'GET' || new URL(request.url).pathname !== metadataPath) return request;
    return new Request(new URL(`${API_BASE}${mcp.metadataPath}`, request.url), request);
  };
  // `/` for an API client (a browser was sent to the console above): where things are.
  const rootIndex = (request: Request): Response | undefined => {
    if (new URL(request.url).pathname !== '/' || request.method !== 'GET') return undefined;
    const api = API_BASE;
    const body = JSON.stringify({
      name: 'agentgov',
      console: `${consolePlugin.path}/`,
      api,
      docs: `${api}/docs`,
      openapi: `${api}/openapi.json`,
      status: `${api}/status`,
    });
    return new Response(body, {
      status: 200,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      },
    });
  };
  const fallback = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const started = performance.now();
    const remoteAddress = req.socket.remoteAddress;
    const request = toFetchRequest(req, res);
    const requestId = requestIdFrom(request);
    // HEAD answers as GET would (the same status and headers: `/` redirects a browser), without the body.
    const head = request.method === 'HEAD';
    const asGet = head ? new Request(request.url, { method: 'GET', headers: request.headers }) : request;
    // The gateway logs the requests it answers; those answered here are logged here, once.
    let toLog = true;
    const log = (status: number) => {
      if (!toLog) return;
      toLog = false;
      const { pathname } = new URL(request.url);
      logRequest(logger, { requestId, method: request.method, path: pathname, status, started });
    };
    const answered = (page: Response) => {
      page.headers.set('x-request-id', requestId);
      if (!head) return page;
      void page.body?.cancel();
      return new Response(null, { status: page.status, statusText: page.statusText, headers: page.headers });
    };
    consolePlugin
      .serve(asGet)
      .then((page) => page ?? rootIndex(asGet))
      .then((page) => {
        if (page) return answered(page);
        toLog = false;
        return governance.handle(metadataRequest(request), remoteAddress ? { remoteAddress } : {});
      })
      .then((response) => {
        log(response.status);
        return sendFetchResponse(res, response);
      })
      .catch(() => {
        if (!res.headersSent) res.writeHead(500, { 'x-request-id': requestId });
        res.end();
        log(500);
      });
  };
  if (framework === 'koa') {
    const [{ mount: mountKoa }, { default: Koa }] = await Promise.all([
      import('@agentgov/adapter-koa'),
      import('koa'),
    ]);
    const app = new Koa();
    app.use(mountKoa(governance));
    app.use(async (ctx) => {
      ctx.respond = false;
      fallback(ctx.req, ctx.res);
    });
    return app.callback();
  }
  const [{ mount: mountExpress }, { default: express }] = await Promise.all([
    import('@agentgov/adapter-express'),
    import('express'),
  ]);
  const app = express();
  app.disable('x-powered-by');
  app.use(mountExpress(governance));
  app.use((req, res) => fallback(req, res));
  return app;
}
