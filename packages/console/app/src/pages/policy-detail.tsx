/**
 * A policy's detail on the Policies page: its content and history line, and — for a policy the
 * caller may manage — Edit and Deprecate. Deprecating is `DELETE /policies/{id}` after a
 * confirmation: the record is kept with status `deprecated` and stops counting.
 */
import { useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../api/client';
import { Badge, ErrorNote, when } from '../ui';

type Policy = Schemas['Policy'];

export function Detail(props: {
  policy: Policy;
  canManage: boolean;
  onEdit: () => void;
  onDeprecated: (p: Policy) => Promise<void>;
}) {
  const p = props.policy;
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | undefined>();
  const deprecate = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const done = await ok(api.DELETE('/api/v1/policies/{id}', { params: { path: { id: p.id } } }));
      setConfirming(false);
      await props.onDeprecated(done);
    } catch (e) {
      setError(e as Error);
    } finally {
      setBusy(false);
    }
  };
  const manageable = props.canManage && p.status !== 'deprecated';
  return (
    <article>
      <header>
        <h2>
          {p.name} <small>v{p.version}</small>
        </h2>
        <small>
          {p.scope} {p.scopeId} · {p.domain} ·{' '}
          <Badge tone={p.status === 'active' ? 'ok' : 'wait'}>{p.status}</Badge> · by {p.createdBy},{' '}
          {when(p.updatedAt)} · “{p.changeReason}”
        </small>
      </header>
      <pre class="yaml">{p.content}</pre>
      {p.status === 'deprecated' ? (
        <p class="muted" role="status">
          Deprecated: it no longer counts in anyone's effective policy. The record is kept; it cannot be
          edited.
        </p>
      ) : null}
      {error ? <ErrorNote error={error} /> : null}
      {manageable && confirming ? (
        <section class="confirm" aria-labelledby={`deprecate-${p.id}`}>
          <h3 id={`deprecate-${p.id}`}>Deprecate {p.name}?</h3>
          <p>
            It stops counting at once: the effective {p.domain} policy of everyone under {p.scope} {p.scopeId}{' '}
            is computed without it. The record is kept (status deprecated) and cannot be edited afterwards.
          </p>
          <div class="actions">
            <button
              type="button"
              class="contrast"
              disabled={busy}
              aria-busy={busy}
              onClick={() => void deprecate()}
            >
              Deprecate {p.name}
            </button>
            <button type="button" class="secondary" disabled={busy} onClick={() => setConfirming(false)}>
              Keep it
            </button>
          </div>
        </section>
      ) : manageable ? (
        <div class="actions">
          <button type="button" onClick={props.onEdit}>
            Edit
          </button>
          <button type="button" class="secondary outline" onClick={() => setConfirming(true)}>
            Deprecate
          </button>
        </div>
      ) : null}
    </article>
  );
}
