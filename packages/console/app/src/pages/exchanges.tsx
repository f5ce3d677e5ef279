/** Exchanges I take part in (admins: their scope), and one exchange's transcript. */
import { api, ok } from '../api/client';
import { Link } from '../router';
import { type Entry, type Exchange, entriesOf } from '../transcript';
import { Badge, Show, useLoad, when } from '../ui';

export function ExchangesPage(props: { id: string | undefined }) {
  return props.id ? <Transcript id={props.id} /> : <List />;
}

const tone = (o: Exchange['outcome']) =>
  o === 'resolved' ? 'ok' : o === 'in_progress' || o === 'escalated' ? 'wait' : 'bad';

function List() {
  const [loaded] = useLoad(
    () => ok(api.GET('/api/v1/exchanges', { params: { query: { pageSize: 100 } } })),
    [],
    10_000,
  );
  return (
    <section>
      <h1>Exchanges</h1>
      <Show loaded={loaded} what="exchanges">
        {(page) => (
          <>
            <p class="muted">{page.total} exchanges (newest first).</p>
            <div class="table">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Started</th>
                    <th scope="col">Type</th>
                    <th scope="col">Initiator → responder</th>
                    <th scope="col">Outcome</th>
                    <th scope="col">Rounds</th>
                  </tr>
                </thead>
                <tbody>
                  {page.exchanges.map((x) => (
                    <tr key={x.exchangeId}>
                      <td>
                        <Link to={`/exchanges/${x.exchangeId}`}>{when(x.startedAt)}</Link>
                      </td>
                      <td>{x.exchangeType.replaceAll('_', ' ')}</td>
                      <td>
                        {x.initiatorUserId} → {x.responderUserId}
                      </td>
                      <td>
                        <Badge tone={tone(x.outcome)}>{x.outcome.replace('_', ' ')}</Badge>
                      </td>
                      <td>
                        {x.currentRound}/{x.maxRounds}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        )}
      </Show>
    </section>
  );
}

function Transcript(props: { id: string }) {
  const [loaded] = useLoad(
    () => ok(api.GET('/api/v1/exchanges/{id}', { params: { path: { id: props.id } } })),
    [props.id],
    5_000,
  );
  return (
    <section>
      <p>
        <Link to="/exchanges">← All exchanges</Link>
      </p>
      <Show loaded={loaded} what="the exchange">
        {(x) => (
          <>
            <h1>
              {x.exchangeType.replaceAll('_', ' ')}: {x.initiatorUserId} → {x.responderUserId}
            </h1>
            <p>
              Outcome <Badge tone={tone(x.outcome)}>{x.outcome.replace('_', ' ')}</Badge>
              {x.escalationReason ? ` (${x.escalationReason})` : ''} · classification {x.classificationLevel}{' '}
              · round {x.currentRound} of {x.maxRounds} · policy <code>{x.policyApplied}</code> · started{' '}
              {when(x.startedAt)}
              {x.endedAt ? ` · ended ${when(x.endedAt)}` : ''}
            </p>
            {x.dataWithheld.length > 0 ? (
              <article class="withheld">
                <h2>Withheld</h2>
                <ul>
                  {x.dataWithheld.map((w, i) => (
                    <li key={String(i)}>
                      <Badge tone="bad">withheld</Badge> {w.description} — {w.reason}
                    </li>
                  ))}
                </ul>
              </article>
            ) : null}
            {x.dataShared.length > 0 ? (
              <p>
                Shared:{' '}
                {x.dataShared.map((d) => (
                  <code key={d.source}>
                    {d.source}: {d.fields.join(', ')}{' '}
                  </code>
                ))}
              </p>
            ) : null}
            <h2>Transcript</h2>
            <ol class="transcript">
              {entriesOf(x).map((e, i) => (
                <li key={String(i)} class={`entry entry-${e.kind}`}>
                  <EntryView e={e} />
                </li>
              ))}
            </ol>
          </>
        )}
      </Show>
    </section>
  );
}

function EntryView(props: { e: Entry }) {
  const { e } = props;
  const at = <small class="muted"> · {when(e.at)}</small>;
  switch (e.kind) {
    case 'message':
    case 'reply':
      return (
        <>
          <strong>
            {e.from} {e.kind}, round {e.round}
            {e.automatic ? ' (automatic)' : ''}
          </strong>
          {at}
          <p>{e.text}</p>
          {e.items?.length ? (
            <ul>
              {e.items.map((item, i) => (
                <li key={String(i)}>
                  <code>
                    {item.source}.{item.field}
                  </code>{' '}
                  <Badge tone="plain">{item.classification}</Badge>{' '}
                  {item.value === undefined ? <Badge tone="bad">withheld</Badge> : JSON.stringify(item.value)}
                </li>
              ))}
            </ul>
          ) : null}
        </>
      );
    case 'awaiting_human':
      return (
        <>
          <strong>Waiting for a human</strong>
          {at}
          <p>
            {e.action}: {e.reason} (until {when(e.expiresAt)})
          </p>
        </>
      );
    case 'human_decision':
      return (
        <>
          <strong>
            {e.decision === 'approved' ? 'Approved' : 'Rejected'} by {e.by}
          </strong>
          {at}
          {e.note ? <p>“{e.note}”</p> : null}
        </>
      );
    case 'refused':
      return (
        <>
          <strong>Refused ({e.code})</strong>
          {at}
          <p>{e.reason}</p>
        </>
      );
    case 'outcome':
      return (
        <>
          <strong>Outcome: {e.outcome}</strong>
          {at}
          {e.reason ? <p>{e.reason}</p> : null}
        </>
      );
    default:
      return (
        <>
          <strong>{e.kind}</strong>
          {at}
        </>
      );
  }
}
