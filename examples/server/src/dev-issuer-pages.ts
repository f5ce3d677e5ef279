/**
 * The pages of the development OIDC issuer (`./dev-issuer`), in agentgov's look instead of
 * oidc-provider's stock ones: the sign-in page (a login form accepting any password, and the
 * development accounts with their roles, each with a button), the interaction handler that shows
 * it and finishes the login (consent implied for the one first-party client), and the frame for
 * the logout and error pages. Every page loads nothing from outside the issuer (its stylesheet is
 * served by the issuer itself) under a strict Content-Security-Policy.
 */
import type http from 'node:http';
import type { DevAccount } from './dev-issuer';

export const SIGN_IN_CSS_PATH = '/agentgov-sign-in.css';
export const SIGN_IN_CSS = `body{font-family:system-ui,sans-serif;max-width:34rem;margin:8vh auto;padding:0 1rem;color:#1f2933}
h1{font-size:1.5rem}label{display:block;margin:.75rem 0 .25rem}input{width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}
button{margin-top:1rem;padding:.5rem 1rem;font-size:1rem;background:#1d4ed8;color:#fff;border:0;border-radius:.3rem;cursor:pointer}
button:focus-visible,input:focus-visible{outline:3px solid #93c5fd;outline-offset:2px}
table{border-collapse:collapse;width:100%;margin-top:.5rem}th,td{text-align:left;padding:.35rem;border-bottom:1px solid #d0d7de}
td button{margin:0;padding:.25rem .6rem;font-size:.9rem}.note{color:#52606d;font-size:.9rem}.error{color:#b3261e}
@media (prefers-color-scheme:dark){body{background:#111827;color:#e5e7eb}.note{color:#9ca3af}}`;

/** A page of the issuer in the sign-in page's look: its stylesheet from here, nothing from outside. */
export function localPage(
  ctx: { type: string; body: unknown; set(field: string, value: string): void },
  origins: readonly string[],
  title: string,
  body: string,
): void {
  ctx.type = 'html';
  ctx.set('content-security-policy', pageCsp(origins));
  ctx.set('x-content-type-options', 'nosniff');
  ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><link rel="stylesheet" href="${SIGN_IN_CSS_PATH}"></head><body><main>${body}</main></body></html>`;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Only plain names reach the page (the accounts are configuration, checked rather than escaped). */
const PLAIN = /^[A-Za-z0-9_.@+-]{1,255}$/;

/**
 * The development sign-in page: the agentgov name, a login form (any password), and — this
 * issuer exists only in development — the accounts with their roles, each with a button.
 */
function signInPage(uid: string, accounts: Map<string, DevAccount>, failed: boolean): string {
  const action = `/interaction/${uid}`;
  const rows = [...accounts.values()]
    .filter((a) =>
      [a.sub, a.email, a.tenant_id, a.org_unit ?? '', a.team ?? '', ...a.roles].every(
        (v) => v === '' || PLAIN.test(v),
      ),
    )
    .map(
      (a) =>
        `<tr><td>${a.sub}</td><td>${a.roles.join(', ')}</td><td>${a.org_unit ?? ''}${a.team ? ` / ${a.team}` : ''}</td>` +
        `<td><form method="post" action="${action}"><input type="hidden" name="login" value="${a.sub}"><input type="hidden" name="password" value="dev">` +
        `<button type="submit" aria-label="Sign in as ${a.sub}">Sign in</button></form></td></tr>`,
    )
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in — agentgov (development)</title><link rel="stylesheet" href="${SIGN_IN_CSS_PATH}"></head><body><main>
<h1>Sign in to agentgov</h1>
<p class="note">The development identity provider of the reference server: any password is accepted.</p>
${failed ? '<p class="error" role="alert">No development account has that name.</p>' : ''}
<form method="post" action="${action}" autocomplete="off">
<label for="login">Account</label><input id="login" name="login" required autofocus>
<label for="password">Password</label><input id="password" name="password" type="password" required>
<button type="submit">Sign in</button></form>
<h2>Development accounts</h2>
<table><thead><tr><th scope="col">Account</th><th scope="col">Roles</th><th scope="col">Org / team</th><th scope="col"><span class="note">Action</span></th></tr></thead><tbody>${rows}</tbody></table>
</main></body></html>`;
}

async function readForm(req: http.IncomingMessage): Promise<URLSearchParams> {
  let body = '';
  for await (const chunk of req) {
    body += String(chunk);
    if (body.length > 8192) throw new Error('sign-in form too large');
  }
  return new URLSearchParams(body);
}

/** GET: the sign-in page (consent is implied for the one client); POST: finishes the login. */
export async function interact(
  provider: import('oidc-provider').default,
  accounts: Map<string, DevAccount>,
  origins: string[],
  uid: string,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  if (details.uid !== uid) throw new Error('interaction mismatch');
  if (details.prompt.name === 'consent') {
    const grant = new provider.Grant({
      accountId: details.session?.accountId ?? '',
      clientId: String(details.params.client_id),
    });
    grant.addOIDCScope('openid email agentgov');
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
    return;
  }
  const page = (failed: boolean) => {
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': pageCsp(origins),
      'x-content-type-options': 'nosniff',
    });
    res.end(signInPage(uid, accounts, failed));
  };
  if (req.method !== 'POST') return page(false);
  const login = (await readForm(req)).get('login') ?? '';
  if (!accounts.has(login)) return page(true);
  await provider.interactionFinished(
    req,
    res,
    { login: { accountId: login } },
    { mergeWithLastSubmission: false },
  );
}

/** The pages' Content-Security-Policy: the issuer's own stylesheet; forms post here or to `origins`. */
function pageCsp(origins: readonly string[]): string {
  return `default-src 'none'; style-src 'self'; form-action 'self' ${origins.join(' ')}; frame-ancestors 'none'; base-uri 'none'`;
}
