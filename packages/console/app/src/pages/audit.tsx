/**
 * The audit log: filter and page (newest first), one entry's detail, and its verification in the
 * browser (inclusion proof + signed checkpoint, checked with WebCrypto). Pages after the first are
 * read at the first page's snapshot (`X-Audit-Snapshot`, passed back as `snapshot` in the page's
 * address): entries appended meanwhile — the console's own reads among them — neither shift nor
 * repeat rows between pages; "Show newest" leaves the snapshot. Export for the
 * enterprise_admin (the API's JSON or CSV). This file holds the list; the entry's page is in
 * `audit-entry.tsx`, the checkpoints in `audit-checkpoints.tsx`.
 */
import { api, given, hrefOf, ok, type QueryOf } from '../api/client';
import { Link, navigate, ROOT, useLocation } from '../router';
import { isEnterpriseAdmin, useMe } from '../session';
import { Badge, Show, useLoad, when } from '../ui';
import { Checkpoints } from './audit-checkpoints';
import { EntryPage } from './audit-entry';

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
  // A position the API takes (at most 16 digits); anything else is the newest.
  const snapshot = /^\d{1,16}$/.test(query.get('snapshot') ?? '') ? (query.get('snapshot') as string) : '';
  const key = query.toString();
  const [loaded] = useLoad(async () => {
    const answer = api.GET('/api/v1/audit', {
      params: {
        query: {
          ...filterQuery(filter),
          page: String(page),
          pageSize: String(PAGE_SIZE),
          ...(snapshot ? { snapshot } : {}),
        },
      },
    });
    const body = await ok(answer);
    // What this answer is of (the page and the snapshot asked), rendered from it: until the
    // next address's answer arrives, the page shows the last one as it was, never relabelled.
    return {
      ...body,
      page,
      pinned: snapshot,
      snapshot: (await answer).response.headers.get('x-audit-snapshot') ?? snapshot,
    };
  }, [key]);
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
      {snapshot ? (
        <p>
          <button type="button" class="outline" onClick={() => go({ page: 1, snapshot: '' })}>
            Show newest
          </button>
        </p>
      ) : null}
      <Show loaded={loaded} what="the audit log">
        {(result) => {
          const pages = Math.max(1, Math.ceil(result.total / PAGE_SIZE));
          return (
            <>
              <p class="muted" aria-live="polite">
                {result.total} entries · page {result.page} of {pages}
                {result.pinned ? ` · as of entry ${result.pinned}` : ''}
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
                  disabled={result.page <= 1}
                  onClick={() => go({ page: result.page - 1, snapshot: result.snapshot })}
                >
                  Previous
                </button>
                <button
                  type="button"
                  class="outline"
                  disabled={result.page >= pages}
                  onClick={() => go({ page: result.page + 1, snapshot: result.snapshot })}
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
