/**
 * The console's pre-built files (Vite's output in `dist/app`), read once into memory with a gzip
 * copy of each compressible file, and the answers for them: content type by extension, a strict
 * Content-Security-Policy (no `unsafe-inline`, no `unsafe-eval`), `immutable` caching for the
 * content-hashed `assets/`, revalidation (ETag) for the rest.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

/** Everything the page loads comes from this server; scripts only from files, styles only from files. */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  // Pico's form controls draw their icons with data: SVG images in the stylesheet.
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.svg', '.txt', '.map']);

export interface StaticFile {
  body: Uint8Array;
  gzip: Uint8Array | undefined;
  type: string;
  etag: string;
  cacheControl: string;
}

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

export function staticFile(name: string, body: Uint8Array): StaticFile {
  const ext = path.extname(name).toLowerCase();
  const hashed = name.startsWith('assets/');
  return {
    body,
    gzip: COMPRESSIBLE.has(ext) && body.byteLength > 512 ? gzipSync(body, { level: 9 }) : undefined,
    type: TYPES[ext] ?? 'application/octet-stream',
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
    // Vite names every asset by its content: cached for a year. The page itself is revalidated.
    cacheControl: hashed ? 'public, max-age=31536000, immutable' : 'no-cache',
  };
}

/** The directory of the built app: `dist/app` beside the built plugin, or from the sources. */
export function defaultAppDir(moduleUrl: string): string {
  const here = path.dirname(fileURLToPath(moduleUrl));
  const candidates = [path.join(here, 'app'), path.join(here, '../../dist/app')];
  return candidates.find((dir) => existsSync(path.join(dir, 'index.html'))) ?? candidates[0]!;
}

/** Every file under `dir`, by its path relative to `dir` with `/` separators. */
export async function readTree(dir: string): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  for (const e of entries) {
    if (!e.isFile()) continue;
    const full = path.join(e.parentPath, e.name);
    out.set(path.relative(dir, full).split(path.sep).join('/'), new Uint8Array(await readFile(full)));
  }
  return out;
}

/** The answer for one file, honouring If-None-Match and Accept-Encoding: gzip. */
export function fileResponse(file: StaticFile, request: Request): Response {
  const headers = new Headers({
    ...SECURITY_HEADERS,
    'content-type': file.type,
    'cache-control': file.cacheControl,
    etag: file.etag,
    vary: 'accept-encoding',
  });
  if (request.headers.get('if-none-match') === file.etag) return new Response(null, { status: 304, headers });
  const gzip = file.gzip && /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '');
  const body = gzip ? file.gzip : file.body;
  if (gzip) headers.set('content-encoding', 'gzip');
  headers.set('content-length', String(body?.byteLength ?? 0));
  return new Response(request.method === 'HEAD' ? null : (body as Uint8Array<ArrayBuffer>), {
    status: 200,
    headers,
  });
}
