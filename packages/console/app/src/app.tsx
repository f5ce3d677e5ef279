/** The console's shell: sign-in state, navigation by role, the page of the current path, sign-out. */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, apiBase, ok, whenSignedOut } from './api/client';
import { AuditPage } from './pages/audit';
import { ExchangesPage } from './pages/exchanges';
import { InboxPage } from './pages/inbox';
import { PoliciesPage } from './pages/policies';
import { StatusPage } from './pages/status';
import { WorkPage } from './pages/work';
import { Link, useLocation } from './router';
import { type Me, MeContext } from './session';
import { ErrorNote } from './ui';

type Auth =
  | { state: 'checking' }
  | { state: 'out'; note?: string }
  | { state: 'in'; me: Me }
  | { state: 'error'; error: Error };

const PAGES = [
  { to: '/', label: 'Inbox', show: () => true },
  { to: '/exchanges', label: 'Exchanges', show: () => true },
  { to: '/audit', label: 'Audit', show: (me: Me) => me.effectivePermissions.canQueryAudit },
  { to: '/policies', label: 'Policies', show: () => true },
  { to: '/work', label: 'Work', show: () => true },
  // GET /status needs no authentication: every signed-in role sees the service's health.
  { to: '/status', label: 'Status', show: () => true },
] as const;

export function App() {
  const [auth, setAuth] = useState<Auth>({ state: 'checking' });
  /** Why the last sign-out did not (fully) happen: shown until the next attempt. */
  const [signOutError, setSignOutError] = useState<Error | undefined>();
  const { path } = useLocation();

  useEffect(() => {
    whenSignedOut(() => setAuth({ state: 'out', note: 'Your session has ended. Sign in again.' }));
    ok(api.GET('/api/v1/auth/userinfo'))
      .then((me) => setAuth({ state: 'in', me }))
      .catch((error: Error) =>
        setAuth(
          error instanceof ApiError && error.status === 401 ? { state: 'out' } : { state: 'error', error },
        ),
      );
  }, []);

  if (auth.state === 'checking')
    return (
      <main class="container" aria-busy="true">
        Loading…
      </main>
    );
  if (auth.state === 'error')
    return (
      <main class="container">
        <ErrorNote error={auth.error} />
      </main>
    );
  if (auth.state === 'out') return <SignIn {...(auth.note ? { note: auth.note } : {})} />;

  const me = auth.me;
  const section = `/${path.split('/')[1] ?? ''}`;
  // Signed out only once the server says so: "Sign out everywhere" after a lost laptop must not
  // say done while a session lives on. Until then the person stays here, told what failed, and
  // can try again. A 401 on logout means this session had ended already.
  const signOut = async (everywhere: boolean) => {
    setSignOutError(undefined);
    try {
      if (everywhere) {
        const own = await ok(api.GET('/api/v1/auth/sessions'));
        let left = 0;
        for (const s of own.sessions) {
          if (s.current) continue;
          const { response } = await api.DELETE('/api/v1/auth/sessions/{id}', {
            params: { path: { id: s.id } },
          });
          if (!response.ok && response.status !== 404) left++;
        }
        if (left > 0)
          throw new Error(
            `${left} of your other sessions could not be ended; you are still signed in here. Try again.`,
          );
      }
      const { response, error } = await api.POST('/api/v1/auth/logout');
      if (!response.ok && response.status !== 401) throw new ApiError(response.status, error as never);
      setAuth({ state: 'out', note: everywhere ? 'Signed out of every session.' : 'Signed out.' });
    } catch (error) {
      setSignOutError(error instanceof Error ? error : new Error(String(error)));
    }
  };
  return (
    <MeContext.Provider value={me}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="container">
        <nav aria-label="Main">
          <ul>
            <li>
              <strong>agentgov</strong>
            </li>
          </ul>
          <ul class="pages">
            {PAGES.filter((p) => p.show(me)).map((p) => (
              <li key={p.to}>
                <Link to={p.to} aria-current={section === p.to ? 'page' : undefined}>
                  {p.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span>
            {me.email || me.userId} · <span class="role">{me.roles.join(', ')}</span>
          </span>
          <button type="button" class="outline secondary small" onClick={() => void signOut(false)}>
            Sign out
          </button>
          <button type="button" class="outline secondary small" onClick={() => void signOut(true)}>
            Sign out everywhere
          </button>
        </div>
      </header>
      <main class="container" id="main">
        {signOutError ? <ErrorNote error={signOutError} /> : null}
        <Page path={path} />
      </main>
    </MeContext.Provider>
  );
}

function Page(props: { path: string }) {
  const [, section = '', rest = ''] = props.path.split('/');
  switch (section) {
    case '':
      return <InboxPage />;
    case 'exchanges':
      return <ExchangesPage id={rest || undefined} />;
    case 'audit':
      return <AuditPage id={rest || undefined} />;
    case 'policies':
      return <PoliciesPage />;
    case 'work':
      return <WorkPage />;
    case 'status':
      return <StatusPage />;
    default:
      return (
        <section>
          <h1>Not found</h1>
          <p>
            There is no page here. <Link to="/">Go to the inbox</Link>.
          </p>
        </section>
      );
  }
}

function SignIn(props: { note?: string }) {
  return (
    <main class="container signin">
      <article>
        <header>
          <h1>agentgov console</h1>
        </header>
        {props.note ? <p role="status">{props.note}</p> : null}
        <p>Approve what your assistants ask, read the audit log and manage policy.</p>
        {/* A link, not a form: the page's CSP (form-action 'self') would stop a form's redirect to the issuer. */}
        <a class="button-link" href={`${apiBase}/auth/login`}>
          Sign in
        </a>
      </article>
    </main>
  );
}
