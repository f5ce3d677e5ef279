/**
 * The rendered API reference: `GET {basePath}/docs` is a Redoc page over the kernel's own
 * `{basePath}/openapi.json`, and `GET {basePath}/docs/redoc.standalone.js` serves Redoc's
 * self-contained browser bundle from the installed `redoc` package — nothing is fetched from a CDN,
 * so the page works on a machine without internet. A plugin of the reference server, not of the
 * kernel: the kernel stays free of a 1 MB browser bundle that SDK users do not need.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { defineRoute, type GatewayPlugin } from '@agentgov/core';

const require = createRequire(import.meta.url);

/** The HTML page; both URLs are relative to `{basePath}/docs`, so any base path works. */
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>agentgov governance service — API reference</title>
<style>body { margin: 0; }</style>
</head>
<body>
<redoc spec-url="openapi.json" hide-download-button="false"></redoc>
<script src="docs/redoc.standalone.js"></script>
</body>
</html>
`;

/**
 * The page loads only from this server: Redoc injects its styles inline and runs its search index
 * in a blob: worker; its footer's logo, an image on Redocly's CDN in the published bundle, is an
 * inline `data:` image in the bundle served here.
 */
const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self' blob:",
  'worker-src blob:',
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Where the bundle's footer logo points (`https://cdn.redoc.ly/redoc/logo-mini.svg` as published). */
const CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
/** A plain mark in the footer's place (not Redocly's artwork): nothing to fetch from outside. */
const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16" role="img" aria-label="Redoc"><rect width="16" height="16" rx="3" fill="#32329f"/><path d="M5 12V4h3.2a2.3 2.3 0 0 1 .6 4.5L11 12H9.2L7.3 8.7H6.5V12zm1.5-4.6h1.6a1 1 0 0 0 0-2H6.5z" fill="#fff"/></svg>`;
/** The logo inline (`img-src data:`): no request at all, and no route in the API's document. */
const LOGO_URL = `data:image/svg+xml;base64,${Buffer.from(LOGO_SVG).toString('base64')}`;

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

export async function apiReference(): Promise<GatewayPlugin> {
  // Read once at start: the bundle is immutable for the life of the process.
  const published = await readFile(require.resolve('redoc/bundles/redoc.standalone.js'), 'utf8');
  if (!published.includes(CDN_LOGO)) {
    // A Redoc upgrade moved its logo: say so rather than let the page reach out to a CDN.
    throw new Error(
      `redoc's bundle no longer names ${CDN_LOGO}; update the logo's rewrite in api-reference.ts`,
    );
  }
  const bundle = published.split(CDN_LOGO).join(LOGO_URL);
  return {
    name: 'api-reference',
    routes: [
      defineRoute({
        method: 'GET',
        path: '/docs',
        operationId: 'getApiReference',
        summary: 'This API reference, rendered (HTML page with Redoc over /openapi.json)',
        auth: 'none',
        responses: { 200: { description: 'HTML page', contentType: 'text/html' } },
        handler: async () =>
          new Response(PAGE, {
            headers: {
              'content-type': 'text/html; charset=utf-8',
              'content-security-policy': PAGE_CSP,
              ...SECURITY_HEADERS,
            },
          }),
      }),
      defineRoute({
        method: 'GET',
        path: '/docs/redoc.standalone.js',
        operationId: 'getApiReferenceScript',
        summary: "Redoc's standalone browser bundle used by the API reference page",
        auth: 'none',
        responses: { 200: { description: 'JavaScript', contentType: 'text/javascript' } },
        handler: async () =>
          new Response(bundle, {
            headers: {
              'content-type': 'text/javascript; charset=utf-8',
              'cache-control': 'public, max-age=86400',
              ...SECURITY_HEADERS,
            },
          }),
      }),
    ],
  };
}
