/**
 * One audit entry's page: its fields, the data it accessed, its detail, and (for the
 * enterprise_admin) its verification in this browser — the inclusion proof against the latest
 * signed checkpoint, checked with WebCrypto.
 */
import { useState } from 'preact/hooks';
import { ApiError, api, ok, type Schemas } from '../api/client';
import { Link } from '../router';
import { isEnterpriseAdmin, useMe } from '../session';
import { ErrorNote, Show, useLoad, when } from '../ui';
import { type Check, verifyInclusion } from '../verify';
import { Checks, keep } from './audit-checkpoints';

export function EntryPage(props: { id: string }) {
  const me = useMe();
  const [loaded] = useLoad(
    () => ok(api.GET('/api/v1/audit/{id}', { params: { path: { id: props.id } } })),
    [props.id],
  );
  return (
    <section>
      <p>
        <Link to="/audit">← Audit log</Link>
      </p>
      <Show loaded={loaded} what="the entry">
        {(e) => (
          <>
            <h1>
              {e.actionType.replaceAll('_', ' ')} by {e.userId}
            </h1>
            <dl class="fields">
              <dt>Entry</dt>
              <dd>
                <code>{e.id}</code>
              </dd>
              <dt>When</dt>
              <dd>{when(e.timestamp)}</dd>
              <dt>Policy</dt>
              <dd>
                <code>{e.policyApplied}</code> → {e.policyResult}
                {e.policyReason ? ` (${e.policyReason})` : ''}
              </dd>
              <dt>Outcome</dt>
              <dd>{e.outcome}</dd>
              <dt>Classification</dt>
              <dd>{e.dataClassification}</dd>
              <dt>Request</dt>
              <dd>
                <code>{e.requestId}</code>
              </dd>
              {e.modelUsed ? (
                <>
                  <dt>Model</dt>
                  <dd>
                    {e.modelUsed}
                    {e.modelTokens ? ` (${e.modelTokens.input} in, ${e.modelTokens.output} out)` : ''}
                  </dd>
                </>
              ) : null}
            </dl>
            {e.dataAccessed.length > 0 ? (
              <>
                <h2>Data accessed</h2>
                <ul>
                  {e.dataAccessed.map((d, i) => (
                    <li key={String(i)}>
                      {d.source} ({d.classification}): {d.purpose}
                    </li>
                  ))}
                </ul>
              </>
            ) : null}
            <h2>Detail</h2>
            <pre class="json">{JSON.stringify(e.actionDetail, null, 2)}</pre>
            {isEnterpriseAdmin(me) ? <Verify entry={e} tenantId={me.tenantId} /> : null}
          </>
        )}
      </Show>
    </section>
  );
}

function Verify(props: { entry: Schemas['AuditEntry']; tenantId: string }) {
  const [checks, setChecks] = useState<Check[] | undefined>();
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    setError(undefined);
    setChecks(undefined);
    try {
      const checkpoint = await ok(api.GET('/api/v1/audit/checkpoint'));
      const proof = await ok(
        api.GET('/api/v1/audit/{id}/proof', {
          params: { path: { id: props.entry.id }, query: { treeSize: String(checkpoint.treeSize) } },
        }),
      );
      const result = await verifyInclusion(props.entry.id, proof, checkpoint);
      setChecks(result);
      if (result.every((c) => c.ok)) keep(props.tenantId, checkpoint);
    } catch (e) {
      setError(
        e instanceof ApiError && (e.status === 400 || e.status === 404)
          ? new Error(
              `This entry is not covered by a signed checkpoint yet (${e.message}). Checkpoints are signed every minute.`,
            )
          : (e as Error),
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <article class="verify">
      <h2>Verify in this browser</h2>
      <p>
        Fetches the entry's inclusion proof and the latest signed checkpoint, and checks both here with
        WebCrypto: the checkpoint's Ed25519 signatures, and that the proof leads from the entry's leaf to the
        signed root.
      </p>
      <button type="button" onClick={() => void run()} disabled={busy} aria-busy={busy}>
        Verify this entry
      </button>
      {error ? <ErrorNote error={error} /> : null}
      {checks ? (
        <>
          <Checks
            checks={checks}
            good="Verified: this entry is in the log the server signed."
            bad="Verification FAILED: this entry does not match the signed log — it may have been tampered with."
          />
          <p class="muted">
            Not checked here: that the entry's content matches its record hash (the hash covers keyed
            commitments of personal identifiers, which need the tenant's key) —{' '}
            <code>agentgov audit verify</code> checks the chain.
          </p>
        </>
      ) : null}
    </article>
  );
}
