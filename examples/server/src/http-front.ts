/**
 * The reference server's HTTP front: the chosen framework (Express, or Koa with
 * `AGENTGOV_FRAMEWORK=koa`) with the gateway mounted through its adapter, and behind it, for
 * everything outside /api/v1, the console's pages (`/` sends a browser there), `/` for an API
 * client (a JSON index of where things are), then the gateway again — so unknown paths get the
 * spec's 404 body rather than a framework page.
 */
import type http from 'node:http';
import type { consoleRoutes } from '@agentgov/console/gateway';
import { type Governance, requestIdFrom, sendFetchResponse, toFetchRequest } from '@agentgov/gateway';
import type { McpPlugin } from '@agentgov/mcp/gateway';
import type { ServerConfig } from './config';

/** The gateway's base path (the kernel's default, which the server keeps). */
const API_BASE = '/api/v1';

/** Every answer carries an `X-Request-Id`, the console's and `/`'s too (the gateway's has one). */
function withRequestId(response: Response, request: Request): Response {
  response.headers.set('x-request-id', requestIdFrom(request));
  return response;
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
  mcp?: Pick<McpPlugin, 'resource' | 'metadataPath'>,
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
    if (new URL(request.url).pathname !== '/') return undefined;
    if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
    const api = API_BASE;
    const body = JSON.stringify({
      name: 'agentgov',
      console: `${consolePlugin.path}/`,
      api,
      docs: `${api}/docs`,
      openapi: `${api}/openapi.json`,
      status: `${api}/status`,
    });
    return new Response(request.method === 'HEAD' ? null : body, {
      status: 200,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      },
    });
  };
  const fallback = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const remoteAddress = req.socket.remoteAddress;
    const request = toFetchRequest(req, res);
    consolePlugin
      .serve(request)
      .then((page) => page ?? rootIndex(request))
      .then((page) =>
        page
          ? withRequestId(page, request)
          : governance.handle(metadataRequest(request), remoteAddress ? { remoteAddress } : {}),
      )
      .then((response) => sendFetchResponse(res, response))
      .catch(() => {
        if (!res.headersSent) res.writeHead(500, { 'x-request-id': requestIdFrom(request) });
        res.end();
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
