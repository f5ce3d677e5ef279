/**
 * `@agentgov/console/gateway`: the web console's plugin. The console is a single-page app built
 * with Vite into this package's `dist/app` at build time; the plugin serves it under `/console`
 * (outside the API's base path, so it adds no API route), with the API's base path handed to the
 * page in a `<meta>` tag. The page talks only to the public API, as the signed-in user (the
 * session cookie).
 *
 * The kernel routes only its base path, so the composition root asks `serve(request)` first for
 * every request outside it (see examples/server): an answer for `/console…` and, for a browser,
 * a redirect from `/` to the console; `undefined` for anything else.
 */
import { type GatewayPlugin, json } from '@agentgov/core';
import {
  defaultAppDir,
  fileResponse,
  readTree,
  SECURITY_HEADERS,
  type StaticFile,
  staticFile,
} from './static-files';

export { CONSOLE_CSP } from './static-files';

export interface ConsoleOptions {
  /**
   * The directory of the built app (default: `dist/app` of this package). Its `index.html` holds
   * the placeholder `%AGENTGOV_API_BASE%`, replaced by the kernel's base path at start.
   */
  appDir?: string;
  /** Redirect a browser asking for `/` to the console (default true). */
  redirectRoot?: boolean;
}

export interface ConsolePlugin extends GatewayPlugin {
  /** Where the console is served: `/console`. */
  readonly path: '/console';
  /**
   * The answer for a request outside the API: the console's page and files under `/console`
   * (GET and HEAD; other methods 405), a redirect from `/` for a browser; `undefined` otherwise.
   */
  serve(request: Request): Promise<Response | undefined>;
}

const PATH = '/console';
const BASE_PATH_RE = /^(\/[A-Za-z0-9._~-]+)*$/;

export function consoleRoutes(options: ConsoleOptions = {}): ConsolePlugin {
  const appDir = options.appDir ?? defaultAppDir(import.meta.url);
  let files: Map<string, StaticFile> | undefined;
  let loading: Promise<Map<string, StaticFile>> | undefined;
  let apiBase = '/api/v1';

  /** The files, or an empty map when the app is not built (the server runs on; the page says so). */
  const load = async (): Promise<Map<string, StaticFile>> => {
    const tree = await readTree(appDir).catch(() => new Map<string, Uint8Array>());
    const out = new Map<string, StaticFile>();
    for (const [name, body] of tree) {
      if (name === 'index.html') {
        // A path of safe characters only (checked at start): no escaping needed.
        const html = new TextDecoder().decode(body).replaceAll('%AGENTGOV_API_BASE%', apiBase);
        out.set(name, staticFile(name, new TextEncoder().encode(html)));
      } else out.set(name, staticFile(name, body));
    }
    files = out;
    return out;
  };

  return {
    name: 'console',
    path: PATH,
    routes: [],
    async start({ basePath }) {
      if (!BASE_PATH_RE.test(basePath)) throw new Error(`the console cannot use the base path '${basePath}'`);
      apiBase = basePath;
      files = undefined;
      loading = load();
      await loading;
    },
    async serve(request) {
      const url = new URL(request.url);
      const { pathname } = url;
      const browser = /\btext\/html\b/.test(request.headers.get('accept') ?? '');
      if (pathname === '/' && options.redirectRoot !== false && browser && request.method === 'GET') {
        return new Response(null, {
          status: 302,
          headers: { location: `${PATH}/`, 'cache-control': 'no-store', ...SECURITY_HEADERS },
        });
      }
      if (pathname !== PATH && !pathname.startsWith(`${PATH}/`)) return undefined;
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        return new Response(null, { status: 405, headers: { allow: 'GET, HEAD', ...SECURITY_HEADERS } });
      }
      loading ??= load();
      const all = files ?? (await loading);
      const index = all.get('index.html');
      if (!index) {
        return new Response('The console is not built: run `pnpm --filter @agentgov/console build`.', {
          status: 503,
          headers: { 'content-type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS },
        });
      }
      const name = pathname.slice(PATH.length + 1);
      const file = all.get(name);
      if (file && name !== 'index.html') return fileResponse(file, request);
      // A missing asset is a 404 (never the page: a stale page must not get HTML for a script).
      if (name.startsWith('assets/') || /\.[a-z0-9]+$/i.test(name)) {
        // The spec's error body, as every other unknown path gets from the gateway.
        return json(404, { error: 'NOT_FOUND', message: `No console asset ${name}` }, SECURITY_HEADERS);
      }
      // Every other path is a page of the app (client-side routes): the app's index.html.
      return fileResponse(index, request);
    },
  };
}
