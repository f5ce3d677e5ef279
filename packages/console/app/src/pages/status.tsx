/** The service's health (components, instances) and the tenant's counters, with a small chart. */
import { api, ok } from '../api/client';
import { canReadMetrics, isEnterpriseAdmin, useMe } from '../session';
import { Badge, Show, useLoad, when } from '../ui';

/**
 * Every signed-in role sees the service's health (GET /status needs no authentication); the
 * tenants and the counters only the roles the API gives them to, and nothing is asked for that
 * the role cannot read.
 */
export function StatusPage() {
  const me = useMe();
  const tenantsAllowed = isEnterpriseAdmin(me);
  const metricsAllowed = canReadMetrics(me);
  const [status] = useLoad(
    async () => {
      const { data, error, response } = await api.GET('/api/v1/status');
      // 503 (degraded) carries the same report.
      const body = data ?? (response.status === 503 ? (error as unknown as typeof data) : undefined);
      if (!body) throw new Error(`The server answered ${response.status}`);
      return body;
    },
    [],
    10_000,
  );
  const [metrics] = useLoad(
    async () => (metricsAllowed ? ok(api.GET('/api/v1/metrics')) : undefined),
    [metricsAllowed],
    metricsAllowed ? 10_000 : undefined,
  );
  const [tenants] = useLoad(
    async () => (tenantsAllowed ? (await ok(api.GET('/api/v1/tenants'))).tenants : []),
    [tenantsAllowed],
  );
  return (
    <section>
      <h1>Status</h1>
      <Show loaded={status} what="the status">
        {(s) => (
          <>
            <p>
              Service <Badge tone={s.status === 'healthy' ? 'ok' : 'bad'}>{s.status}</Badge> at{' '}
              {when(s.timestamp)}
            </p>
            <h2>Components</h2>
            <ul class="components">
              {Object.entries(s.components).flatMap(([name, c]) =>
                name === 'connectors'
                  ? Object.entries(c as Record<string, { status: string }>).map(([id, cc]) => (
                      <li key={`connector-${id}`}>
                        connector {id}{' '}
                        <Badge tone={cc.status === 'healthy' ? 'ok' : 'bad'}>{cc.status}</Badge>
                      </li>
                    ))
                  : [
                      <li key={name}>
                        {name}{' '}
                        <Badge tone={(c as { status?: string }).status === 'healthy' ? 'ok' : 'bad'}>
                          {String((c as { status?: string }).status)}
                        </Badge>
                      </li>,
                    ],
              )}
            </ul>
          </>
        )}
      </Show>
      <Show loaded={tenants} what="the instances">
        {(list) =>
          list.length > 0 ? (
            <>
              <h2>Tenants and instances</h2>
              <ul>
                {list.map((t) => (
                  <li key={t.id}>
                    {t.name} ({t.id}): {t.gatewayInstances} gateway instance(s), {t.userCount} users,{' '}
                    {t.policyCount} policies
                  </li>
                ))}
              </ul>
            </>
          ) : null
        }
      </Show>
      {metricsAllowed ? (
        <>
          <h2>Metrics</h2>
          <Show loaded={metrics} what="the metrics">
            {(m) => (m ? <Bars values={m as unknown as Record<string, unknown>} /> : null)}
          </Show>
        </>
      ) : null}
    </section>
  );
}

/** A bar per numeric counter (SVG attributes, no inline style: the CSP forbids it). */
function Bars(props: { values: Record<string, unknown> }) {
  const rows = Object.entries(props.values).filter((e): e is [string, number] => typeof e[1] === 'number');
  const max = Math.max(1, ...rows.map(([, v]) => v));
  const h = 24;
  return (
    <figure>
      <svg class="bars" viewBox={`0 0 400 ${rows.length * h}`} role="img" aria-labelledby="bars-title">
        <title id="bars-title">Counters of this tenant</title>
        {rows.map(([k, v], i) => (
          <g key={k} transform={`translate(0 ${i * h})`}>
            <text x="0" y="16" class="bar-label">
              {k}
            </text>
            <rect x="170" y="4" height="14" width={Math.max(1, (v / max) * 180)} class="bar" />
            <text x={176 + (v / max) * 180} y="16" class="bar-value">
              {v}
            </text>
          </g>
        ))}
      </svg>
      <figcaption>{rows.map(([k, v]) => `${k} ${v}`).join(' · ')}</figcaption>
    </figure>
  );
}
