/**
 * Cross-site request forgery: a state-changing request (anything but GET, HEAD, OPTIONS)
 * authenticated by the session cookie must come from the server's own origin. `SameSite=Strict`
 * alone does not do: another port of the same host, or a sibling subdomain, is the same *site*, so
 * the browser sends the cookie with a form it posts from there. Browsers say where a request comes
 * from (`Sec-Fetch-Site`, `Origin`, OWASP's "verifying origin with standard headers"); a request
 * that says it comes from elsewhere is 403 `forbidden`. A request with neither header is not a
 * browser's (curl, a server-side client), which no other site can make carry the cookie.
 *
 * Its body must be JSON (`application/json` or `…+json`, else 415 `unsupported_media_type`): a
 * page on another site can post only a form's types (`text/plain`, urlencoded, multipart) without
 * a CORS preflight, so this refuses the forged write even from a browser that names no origin.
 *
 * Bearer requests are not checked: a browser never attaches a bearer token by itself.
 */
import { errorOf } from '@agentgov/core';

/** What the check reads of a request. */
interface Presented {
  readonly method: string;
  header(name: string): string | null;
  url(): URL;
}

const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** `application/json` or a `+json` type (parameters ignored). */
const JSON_TYPE = /^\s*application\/(?:json|[^\s;/]+\+json)\s*(?:;|$)/i;

/** Whether the request carries a body (a non-zero Content-Length, or a chunked one). */
function hasBody(request: Presented): boolean {
  const length = request.header('content-length');
  if (length !== null) return length.trim() !== '0';
  return request.header('transfer-encoding') !== null;
}

/**
 * The check for cookie-authenticated writes. `trusted`: the origins the console and API are
 * served from besides the request's own (the public origin of the OIDC redirect URI behind a
 * TLS-terminating proxy, and any configured `trustedOrigins`).
 */
export function sameOriginCheck(trusted: readonly string[]): (request: Presented) => void {
  const origins = new Set<string>();
  for (const t of trusted) {
    try {
      origins.add(new URL(t).origin);
    } catch {
      throw new Error(`trustedOrigins: "${t}" is not an absolute URL`);
    }
  }
  return (request) => {
    if (SAFE_METHODS.has(request.method)) return;
    // The origin a browser names decides when it names one: ours or a trusted one passes — a
    // trusted origin is another origin, whose requests the browser calls same-site or
    // cross-site — and any other is refused. Without an Origin, Sec-Fetch-Site decides.
    const origin = request.header('origin');
    if (origin !== null) {
      if (!origins.has(origin) && origin !== request.url().origin) {
        throw errorOf(
          'forbidden',
          'A request from another origin cannot use the session cookie to change anything',
        );
      }
    } else {
      const site = request.header('sec-fetch-site');
      if (site !== null && site !== 'same-origin' && site !== 'none') {
        throw errorOf('forbidden', `A ${site} request cannot use the session cookie to change anything`);
      }
    }
    // From any origin: a type that is not JSON, or a body without a type.
    const type = request.header('content-type');
    if (type !== null ? !JSON_TYPE.test(type) : hasBody(request)) {
      throw errorOf(
        'unsupported_media_type',
        'A write authenticated by the session cookie must send its body as application/json',
      );
    }
  };
}
