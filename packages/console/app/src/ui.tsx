/** Small shared pieces: loading/error states, dates, polling. */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api/client';

export type Loaded<T> = { state: 'loading' } | { state: 'error'; error: Error } | { state: 'ok'; value: T };

/**
 * Loads `fn` (again when `deps` change, and every `pollMs` when given); `reload` loads now. A poll
 * keeps the last value on screen while it runs.
 */
export function useLoad<T>(
  fn: () => Promise<T>,
  deps: unknown[],
  pollMs?: number,
): [Loaded<T>, () => Promise<void>] {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  const fnRef = useRef(fn);
  fnRef.current = fn;
  const reload = useCallback(async () => {
    try {
      setLoaded({ state: 'ok', value: await fnRef.current() });
    } catch (error) {
      setLoaded({ state: 'error', error: error instanceof Error ? error : new Error(String(error)) });
    }
  }, []);
  useEffect(() => {
    setLoaded({ state: 'loading' });
    void reload();
    if (!pollMs) return;
    const timer = window.setInterval(() => {
      if (document.visibilityState === 'visible') void reload();
    }, pollMs);
    return () => window.clearInterval(timer);
  }, deps);
  return [loaded, reload];
}

export function Show<T>(props: {
  loaded: Loaded<T>;
  children: (value: T) => ComponentChildren;
  what?: string;
}) {
  const { loaded } = props;
  if (loaded.state === 'loading') return <p aria-busy="true">Loading {props.what ?? ''}…</p>;
  if (loaded.state === 'error') return <ErrorNote error={loaded.error} />;
  return <>{props.children(loaded.value)}</>;
}

export function ErrorNote(props: { error: Error }) {
  const e = props.error;
  const code = e instanceof ApiError ? e.body?.error : undefined;
  return (
    <p class="error" role="alert">
      {e instanceof ApiError && e.status === 403 ? 'Your role does not allow this: ' : ''}
      {e.message}
      {code ? <small> ({code})</small> : null}
    </p>
  );
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

export function Badge(props: { tone: 'ok' | 'bad' | 'wait' | 'plain'; children: ComponentChildren }) {
  return <span class={`badge badge-${props.tone}`}>{props.children}</span>;
}
