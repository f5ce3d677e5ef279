/**
 * Signs a test account in the way a client does: an authorization code from the test issuer,
 * exchanged at `POST {base}/auth/callback`, the session cookie read from the answer.
 */
import type { TestAccount, TestIssuer } from './oidc-issuer';

export interface SignedIn {
  /** `name=value`, ready for a `cookie` header. */
  cookie: string;
  /** The session id alone. */
  value: string;
  /** The whole `Set-Cookie` line (attributes included). */
  setCookie: string;
  /** The authorization code that was exchanged. */
  code: string;
  response: Response;
}

/**
 * Exchanges a fresh code for `account` through `send` (a kernel's `handle`, or `fetch` for a real
 * server); throws unless the answer is 200 with the session cookie. `base` is the API's base URL
 * (default `http://gw/api/v1`), `cookieName` the session cookie's (default `session`).
 */
export async function signIn(
  issuer: TestIssuer,
  account: TestAccount,
  send: (request: Request) => Promise<Response> = fetch,
  options: { base?: string; cookieName?: string; headers?: Record<string, string> } = {},
): Promise<SignedIn> {
  const name = options.cookieName ?? 'session';
  const code = await issuer.issueCode(account);
  const response = await send(
    new Request(`${options.base ?? 'http://gw/api/v1'}/auth/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...options.headers },
      body: JSON.stringify({ code }),
    }),
  );
  if (response.status !== 200) {
    throw new Error(`sign-in answered ${response.status}: ${await response.text()}`);
  }
  const setCookie = response.headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
  if (!setCookie) throw new Error(`no ${name} cookie in ${response.headers.getSetCookie().join(' | ')}`);
  const cookie = setCookie.split(';')[0] as string;
  return { cookie, value: cookie.slice(name.length + 1), setCookie, code, response };
}
