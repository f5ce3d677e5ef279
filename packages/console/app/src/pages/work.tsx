/** My work: today's standup summary, my tasks, my latest briefing. */
import { ApiError, api, ok } from '../api/client';
import { useMe } from '../session';
import { Badge, Show, useLoad, when } from '../ui';

export function WorkPage() {
  const me = useMe();
  const today = new Date().toISOString().slice(0, 10);
  const [standup] = useLoad(
    () => ok(api.POST('/api/v1/tools/standup_summary', { body: { userId: me.userId, date: today } })),
    [me.userId, today],
  );
  const [tasks] = useLoad(
    () => ok(api.GET('/api/v1/tasks', { params: { query: { userId: me.userId } } })).then((r) => r.tasks),
    [me.userId],
  );
  const [briefing] = useLoad(async () => {
    try {
      return await ok(api.GET('/api/v1/briefings/latest', { params: { query: { userId: me.userId } } }));
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) return undefined;
      throw e;
    }
  }, [me.userId]);
  return (
    <section>
      <h1>Work</h1>
      <h2>Standup, {today}</h2>
      <Show loaded={standup} what="your standup">
        {(s) => (
          <article>
            <p>{s.summaryText || 'Nothing recorded today.'}</p>
            {Object.keys(s.totals).length > 0 ? (
              <ul class="inline">
                {Object.entries(s.totals).map(([k, v]) => (
                  <li key={k}>
                    {k}: <strong>{v}</strong>
                  </li>
                ))}
              </ul>
            ) : null}
          </article>
        )}
      </Show>
      <h2>Tasks</h2>
      <Show loaded={tasks} what="your tasks">
        {(list) =>
          list.length === 0 ? (
            <p class="muted">No tasks.</p>
          ) : (
            <ul>
              {list.map((t) => (
                <li key={t.id}>
                  <strong>{t.title}</strong> <Badge tone="plain">{t.status}</Badge> priority {t.priorityScore}
                  {t.deadline ? ` · due ${when(t.deadline)}` : ''}
                </li>
              ))}
            </ul>
          )
        }
      </Show>
      <h2>Latest briefing</h2>
      <Show loaded={briefing} what="your briefing">
        {(b) =>
          b ? (
            <article>
              <p class="muted">Generated {when(b.generatedAt)}</p>
              <ol>
                {b.timeBlocks.map((block, i) => (
                  <li key={String(i)}>
                    {when(block.start)}–{new Date(block.end).toLocaleTimeString()}: {block.label}
                  </li>
                ))}
              </ol>
            </article>
          ) : (
            <p class="muted">No briefing yet.</p>
          )
        }
      </Show>
    </section>
  );
}
