/** A small history-API router: paths under /console/, links that navigate without a reload. */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export const ROOT = '/console';

const listeners = new Set<() => void>();
export function navigate(to: string): void {
  window.history.pushState(null, '', to);
  for (const l of listeners) l();
}

/** The current path below /console ('/', '/audit', '/audit/ID', …) and its query. */
export function useLocation(): { path: string; query: URLSearchParams } {
  const read = () => ({
    path: window.location.pathname.slice(ROOT.length) || '/',
    query: new URLSearchParams(window.location.search),
  });
  const [loc, setLoc] = useState(read);
  useEffect(() => {
    const update = () => setLoc(read());
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return loc;
}

export function Link(props: {
  to: string;
  children: ComponentChildren;
  'aria-current'?: 'page' | undefined;
}) {
  const { to, children } = props;
  const href = `${ROOT}${to}`;
  return (
    <a
      aria-current={props['aria-current']}
      href={href}
      onClick={(e) => {
        if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(href);
      }}
    >
      {children}
    </a>
  );
}
