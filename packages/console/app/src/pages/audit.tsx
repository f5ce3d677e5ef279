/**
 * The audit log: filter and page (newest first), one entry's detail, and its verification in the
 * browser (inclusion proof + signed checkpoint, checked with WebCrypto). Export for the
 * enterprise_admin (the API's JSON or CSV).
 */
import { useState } from 'preact/hooks';
import { ApiError, api, given, hrefOf, ok, type QueryOf, type Schemas } from '../api/client';
import { Link, navigate, ROOT, useLocation } from '../router';
import { isEnterpriseAdmin, useMe } from '../session';
import { Badge, ErrorNote, Show, useLoad, when } from '../ui';
import { type Check, verifyGrowth, verifyInclusion } from '../verify';

const PAGE_SIZE = 20;
type AuditQuery = QueryOf<'/api/v1/audit'>;
const ACTIONS: NonNullable<AuditQuery['actionType']>[] = [
  'tool_invocation',
  'data_access',
  'model_call',
  'policy_decision',
  'agent_exchange',
  'policy_change',
];
const FILTERS = ['userId', 'actionType', 'policyResult', 'from', 'to'] as const;
type Filter = Record<(typeof FILTERS)[number], string>;

/**
 * The filter of the page's address as the query parameters the API documents (the form offers
 * only the values the document lists; the server checks them again).
 */
function filterQuery(filter: Filter) {
  return given({
    userId: filter.userId,
    actionType: filter.actionType as AuditQuery['actionType'],
    policyResult: filter.policyResult as AuditQuery['policyResult'],
    from: filter.from ? new Date(filter.from).toISOString() : undefined,
    to: filter.to ? new Date(filter.to).toISOString() : undefined,
  } satisfies AuditQuery);
}

export function AuditPage(props: { id: string | undefined }) {
  return props.id ? <EntryPage id={props.id} /> : <ListPage />;
}

function ListPage() {
  const me = useMe();
  const { query } = useLocation();
  const page = Math.max(1, Number(query.get('page') ?? '1') || 1);
  const filter = Object.fromEntries(FILTERS.map((k) => [k, query.get(k) ?? ''])) as Filter;
  const key = query.toString();
  const [loaded] = useLoad(
    () =>
      ok(
        api.GET('/api/v1/audit', {
          params: { query: { ...filterQuery(filter), page: String(page), pageSize: String(PAGE_SIZE) } },
        }),
      ),
    [key],
  );
  const go = (next: Record<string, string | number>) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries({ ...filter, page, ...next }))
      if (v !== '' && v !== 1) q.set(k, String(v));
    navigate(`${ROOT}/audit${q.size ? `?${q}` : ''}`);
  };
  return (
    <section>
      <h1>Audit log</h1>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          const data = new FormData(e.currentTarget);
          go({ ...Object.fromEntries(FILTERS.map((k) => [k, String(data.get(k) ?? '')])), page: 1 });
        }}
      >
        <label>
          User
          <input name="userId" defaultValue={filter.userId} autocomplete="off" />
        </label>
        <label>
          Action
          <select name="actionType" defaultValue={filter.actionType}>
            <option value="">any</option>
            {ACTIONS.map((a) => (
              <option key={a} value={a}>
                {a.replaceAll('_', ' ')}
              </option>
            ))}
          </select>
        </label>
        <label>
          Result
          <select name="policyResult" defaultValue={filter.policyResult}>
            <option value="">any</option>
            <option value="allow">allow</option>
            <option value="deny">deny</option>
            <option value="require_approval">require approval</option>
          </select>
        </label>
        <label>
          From
          <input type="datetime-local" name="from" defaultValue={filter.from} />
        </label>
        <label>
          To
          <input type="datetime-local" name="to" defaultValue={filter.to} />
        </label>
        <button type="submit">Filter</button>
      </form>
      {isEnterpriseAdmin(me) ? (
        <p>
          Export:{' '}
          <a href={hrefOf('/api/v1/audit/export', { ...filterQuery(filter), format: 'json' })} download>
            JSON
          </a>{' '}
          ·{' '}
          <a href={hrefOf('/api/v1/audit/export', { ...filterQuery(filter), format: 'csv' })} download>
            CSV
          </a>
        </p>
      ) : null}
      {isEnterpriseAdmin(me) ? <Checkpoints tenantId={me.tenantId} /> : null}
      <Show loaded={loaded} what="the audit log">
        {(result) => {
          const pages = Math.max(1, Math.ceil(result.total / PAGE_SIZE));
          return (
            <>
              <p class="muted" aria-live="polite">
                {result.total} entries · page {page} of {pages}
              </p>
              <div class="table">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">When</th>
                      <th scope="col">User</th>
                      <th scope="col">Action</th>
                      <th scope="col">Policy</th>
                      <th scope="col">Result</th>
                      <th scope="col">Outcome</th>
                    </tr>
                  </thead>
                  <tbody>
                    {result.entries.map((e) => (
                      <tr key={e.id}>
                        <td>
                          <Link to={`/audit/${e.id}`}>{when(e.timestamp)}</Link>
                        </td>
                        <td>{e.userId}</td>
                        <td>{e.actionType.replaceAll('_', ' ')}</td>
                        <td>
                          <code>{e.policyApplied}</code>
                        </td>
                        <td>
                          <Badge
                            tone={
                              e.policyResult === 'allow' ? 'ok' : e.policyResult === 'deny' ? 'bad' : 'wait'
                            }
                          >
                            {e.policyResult}
                          </Badge>
                        </td>
                        <td>{e.outcome.replaceAll('_', ' ')}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <nav aria-label="Pages" class="pager">
                <button
                  type="button"
                  class="outline"
                  disabled={page <= 1}
                  onClick={() => go({ page: page - 1 })}
                >
                  Previous
                </button>
                <button
                  type="button"
                  class="outline"
                  disabled={page >= pages}
                  onClick={() => go({ page: page + 1 })}
                >
                  Next
                </button>
              </nav>
            </>
          );
        }}
      </Show>
    </section>
  );
}

/** The checkpoint this browser keeps per tenant (the last one it verified). */
const keptKey = (tenantId: string) => `agentgov.checkpoint.${tenantId}`;
function readKept(tenantId: string): { treeSize: number; rootHash: string } | undefined {
  try {
    const v = JSON.parse(window.localStorage.getItem(keptKey(tenantId)) ?? 'null') as {
      treeSize?: unknown;
      rootHash?: unknown;
    } | null;
    return v && typeof v.treeSize === 'number' && typeof v.rootHash === 'string'
      ? { treeSize: v.treeSize, rootHash: v.rootHash }
      : undefined;
  } catch {
    return undefined;
  }
}
function keep(tenantId: string, c: { treeSize: number; rootHash: string }): void {
  const kept = readKept(tenantId);
  if (!kept || kept.treeSize <= c.treeSize)
    window.localStorage.setItem(
      keptKey(tenantId),
      JSON.stringify({ treeSize: c.treeSize, rootHash: c.rootHash }),
    );
}

/**
 * Checkpoints over time: the latest signed checkpoint, and a check in this browser that the log
 * only grew since a checkpoint you kept (this browser keeps the last one it verified).
 */
function Checkpoints(props: { tenantId: string }) {
  const [latest] = useLoad(async () => {
    try {
      return await ok(api.GET('/api/v1/audit/checkpoint'));
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) return undefined;
      throw e;
    }
  }, []);
  const kept = readKept(props.tenantId);
  const [size, setSize] = useState(kept ? String(kept.treeSize) : '');
  const [root, setRoot] = useState(kept?.rootHash ?? '');
  const [checks, setChecks] = useState<Check[] | undefined>();
  const [error, setError] = useState<Error | undefined>();
  const run = async () => {
    setError(undefined);
    setChecks(undefined);
    try {
      const treeSize = Number(size);
      if (!Number.isSafeInteger(treeSize) || treeSize < 1 || !/^[0-9a-f]{64}$/.test(root.trim()))
        throw new Error('Give the kept checkpoint’s size (a positive number) and root (64 hex digits).');
      const cp = await ok(api.GET('/api/v1/audit/checkpoint'));
      const proof = await ok(
        api.GET('/api/v1/audit/consistency', {
          params: { query: { from: String(treeSize), to: String(cp.treeSize) } },
        }),
      );
      const result = await verifyGrowth({ treeSize, rootHash: root.trim() }, cp, proof);
      setChecks(result);
      if (result.every((c) => c.ok)) keep(props.tenantId, cp);
    } catch (e) {
      setError(e as Error);
    }
  };
  return (
    <details class="checkpoints">
      <summary>Checkpoints over time</summary>
      <Show loaded={latest} what="the latest checkpoint">
        {(c) =>
          c ? (
            <p>
              Latest signed checkpoint: <strong>{c.treeSize}</strong> entries at {when(c.issuedAt)}, root{' '}
              <code class="digest">{c.rootHash}</code>
            </p>
          ) : (
            <p class="muted">No checkpoint yet: the server signs one every minute while the log grows.</p>
          )
        }
      </Show>
      <p>
        Check that the log only grew since a checkpoint you kept (this browser keeps the last one it
        verified):
      </p>
      <div class="grid">
        <label>
          Kept tree size
          <input
            inputMode="numeric"
            value={size}
            onInput={(e) => setSize((e.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          Kept root hash
          <input
            value={root}
            spellcheck={false}
            onInput={(e) => setRoot((e.target as HTMLInputElement).value)}
          />
        </label>
      </div>
      <button type="button" onClick={() => void run()}>
        Check the log only grew
      </button>
      {error ? <ErrorNote error={error} /> : null}
      {checks ? (
        <Checks
          checks={checks}
          good="The log only grew since the checkpoint you kept."
          bad="Consistency FAILED: the log was rewritten since the checkpoint you kept."
        />
      ) : null}
    </details>
  );
}

function Checks(props: { checks: Check[]; good: string; bad: string }) {
  const passed = props.checks.every((c) => c.ok);
  return (
    <div role="status">
      <p class={passed ? 'verdict ok' : 'verdict bad'}>{passed ? props.good : props.bad}</p>
      <ul class="checks">
        {props.checks.map((c) => (
          <li key={c.name} class={c.ok ? 'ok' : 'bad'}>
            <strong>
              {c.ok ? '✓' : '✗'} {c.name}
            </strong>
            <span class="sr-only">{c.ok ? ' passed' : ' failed'}</span>: {c.detail}
          </li>
        ))}
      </ul>
    </div>
  );
}

function EntryPage(props: { id: string }) {
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
