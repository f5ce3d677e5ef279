/**
 * Signs in at the approval console as a browser does: GET /api/v1/auth/login → the development
 * issuer's sign-in form (the account, any password) and its consent form → back to GET
 * /api/v1/auth/callback (state and PKCE bound by the login cookie) → the landing page. Cookies are
 * kept by name, as a browser keeps them for one host (the issuer and the console share 127.0.0.1).
 * Returns the `Cookie` header value of the session.
 */
export async function signIn(consoleUrl: string, user: string): Promise<string> {
  const jar = new Map<string, string>();
  const go = async (url: string, init: RequestInit = {}): Promise<Response> => {
    const res = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: cookieOf(jar) },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const i = pair.indexOf('=');
      const name = pair.slice(0, i).trim();
      const value = pair.slice(i + 1);
      if (value === '' || /max-age=0\b/i.test(line)) jar.delete(name);
      else jar.set(name, value);
    }
    return res;
  };
  const callback = `${consoleUrl}/api/v1/auth/callback`;
  let here = `${consoleUrl}/api/v1/auth/login`;
  let res = await go(here);
  for (let hop = 0; hop < 20; hop++) {
    const location = res.headers.get('location');
    if (location) {
      here = new URL(location, here).href;
      res = await go(here);
      continue;
    }
    const html = await res.text();
    if (here.startsWith(callback)) {
      const session = jar.get('session');
      if (res.status !== 200 || !session) throw new Error(`login failed (${res.status}): ${html}`);
      return `session=${session}`;
    }
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error(`unexpected page at ${here} (${res.status}): ${html.slice(0, 300)}`);
    const form: Record<string, string> = /name="login"/.test(html)
      ? { prompt: 'login', login: user, password: 'any' }
      : { prompt: 'consent' };
    here = new URL(action, here).href;
    res = await go(here, {
      method: 'POST',
      body: new URLSearchParams(form),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  }
  throw new Error('the login did not complete');
}

const cookieOf = (jar: Map<string, string>) => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
