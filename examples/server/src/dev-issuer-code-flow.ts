/**
 * The authorization-code flow of the development OIDC issuer (`./dev-issuer`) run without a
 * browser: `runCodeFlow` drives the issuer's sign-in page for a dev account as a browser would
 * (cookies kept, redirects followed by hand, the login form posted) and returns the code the
 * issuer sends to the redirect URI — what `DevIssuer.authorizationCode` answers, for tests and
 * scripts that sign in through the real flow.
 */

/** Drives oidc-provider's dev login form like a browser would, following redirects by hand. */
export async function runCodeFlow(
  issuer: string,
  clientId: string,
  redirectUri: string,
  sub: string,
): Promise<string> {
  const jar = new Map<string, string>();
  const remember = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, ...value] = (pair ?? '').split('=');
      if (name) jar.set(name.trim(), value.join('='));
    }
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const go = async (url: string, init: RequestInit = {}): Promise<Response> => {
    const res = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers ?? {}), cookie: cookie() },
    });
    remember(res);
    return res;
  };
  const auth = new URL('/auth', issuer);
  auth.search = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    scope: 'openid email agentgov',
    redirect_uri: redirectUri,
    state: crypto.randomUUID(),
  }).toString();
  let res = await go(auth.href);
  for (let hop = 0; hop < 10; hop++) {
    const location = res.headers.get('location');
    if (location?.startsWith(redirectUri)) {
      const code = new URL(location).searchParams.get('code');
      if (!code) throw new Error(`authorization failed: ${location}`);
      return code;
    }
    if (location) {
      res = await go(new URL(location, issuer).href);
      continue;
    }
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error(`unexpected page from the dev issuer (status ${res.status})`);
    const isLogin = /name="login"/.test(html);
    const body = new URLSearchParams(
      isLogin ? { prompt: 'login', login: sub, password: 'dev' } : { prompt: 'consent' },
    );
    res = await go(new URL(action, issuer).href, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  }
  throw new Error('authorization did not complete');
}
