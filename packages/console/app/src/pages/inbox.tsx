/**
 * What waits for me: exchanges whose request needs my decision, and (when the server governs MCP
 * tool calls) tool calls waiting for approval — each with the arguments it would run with, so the
 * approver reads what they approve rather than what the assistant says it does. Polled every 5 s;
 * an item decided elsewhere disappears at the next poll, or at once when deciding it answers that
 * nothing is pending.
 */
import { useState } from 'preact/hooks';
import { ApiError, api, ok, type Schemas } from '../api/client';
import { Link } from '../router';
import { useMe } from '../session';
import { type Exchange, pendingRequest } from '../transcript';
import { Badge, ErrorNote, Show, useLoad, when } from '../ui';

const POLL_MS = 5_000;

interface Inbox {
  exchanges: Exchange[];
  /** undefined: the server does not govern MCP tool calls. */
  toolCalls: Schemas['ToolApproval'][] | undefined;
}

/**
 * Whether the server governs MCP tool calls: a 404 from the approvals route says it does not (the
 * MCP plugin is not mounted), and the console stops asking until the page is loaded again —
 * instead of a failed request every poll.
 */
let toolCallsGoverned = true;

async function loadInbox(me: string): Promise<Inbox> {
  const [page, tools] = await Promise.all([
    ok(api.GET('/api/v1/exchanges', { params: { query: { outcome: 'in_progress', pageSize: 1000 } } })),
    toolCallsGoverned
      ? api.GET('/api/v1/mcp/approvals', { params: { query: { status: 'pending' } } })
      : undefined,
  ]);
  const exchanges = page.exchanges.filter((x) => x.responderUserId === me && pendingRequest(x));
  if (tools?.response.status === 404) toolCallsGoverned = false;
  if (!tools || !toolCallsGoverned) return { exchanges, toolCalls: undefined };
  if (!tools.data) throw new ApiError(tools.response.status, tools.error as Schemas['ErrorBody']);
  return { exchanges, toolCalls: tools.data.approvals };
}

export function InboxPage() {
  const me = useMe();
  const [loaded, reload] = useLoad(() => loadInbox(me.userId), [me.userId], POLL_MS);
  const count =
    loaded.state === 'ok' ? loaded.value.exchanges.length + (loaded.value.toolCalls?.length ?? 0) : undefined;
  return (
    <section>
      <h1>Inbox</h1>
      <p class="muted" aria-live="polite">
        {count === undefined
          ? 'Checking what waits for you…'
          : count === 0
            ? 'Nothing waits for you.'
            : `${count} waiting for your decision.`}{' '}
        Updated every {POLL_MS / 1000} s.
      </p>
      <Show loaded={loaded} what="your inbox">
        {(inbox) => (
          <>
            <h2>Exchanges needing your approval</h2>
            {inbox.exchanges.length === 0 ? <p class="muted">No exchange waits for you.</p> : null}
            {inbox.exchanges.map((x) => (
              <ExchangeItem key={x.exchangeId} x={x} onDone={reload} />
            ))}
            <h2>Tool calls waiting for approval</h2>
            {inbox.toolCalls ? (
              <>
                {inbox.toolCalls.length === 0 ? <p class="muted">No tool call waits for you.</p> : null}
                {inbox.toolCalls.map((a) => (
                  <ToolCallItem key={a.id} a={a} onDone={reload} />
                ))}
              </>
            ) : (
              <p class="muted">
                Tool-call approvals are not configured on this server (it does not govern MCP tool calls).
              </p>
            )}
          </>
        )}
      </Show>
    </section>
  );
}

function ExchangeItem(props: { x: Exchange; onDone: () => Promise<void> }) {
  const { x } = props;
  const pending = pendingRequest(x);
  if (!pending) return null;
  const { request, message } = pending;
  const commitment = message?.commitment as { action?: string; detail?: string } | undefined;
  return (
    <article class="item" aria-labelledby={`x-${x.exchangeId}`}>
      <header>
        <h3 id={`x-${x.exchangeId}`}>
          {x.initiatorUserId} asks: {label(request.action ?? x.exchangeType)}
        </h3>
        <small>
          from {x.initiatorUserId} ({request.initiatorOrgUnit ?? 'unknown org'}) through {x.initiatorAgentId}{' '}
          · round {request.round} of {x.maxRounds} · <Badge tone="wait">{x.classificationLevel}</Badge> ·
          expires {when(request.expiresAt)}
        </small>
      </header>
      {message?.text ? <blockquote>{message.text}</blockquote> : null}
      {commitment ? (
        <p>
          <strong>The commitment asked:</strong> {commitment.action}
          {commitment.detail ? ` — ${commitment.detail}` : ''}
        </p>
      ) : null}
      {message?.items?.length ? (
        <details>
          <summary>The data involved ({message.items.length})</summary>
          <ul>
            {message.items.map((item, i) => (
              <li key={String(i)}>
                <code>
                  {item.source}.{item.field}
                </code>{' '}
                <Badge tone="plain">{item.classification}</Badge>{' '}
                {item.value === undefined ? null : <span>{JSON.stringify(item.value)}</span>}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
      <p>
        <strong>Why you are asked:</strong> {request.reason}. The reply may carry data up to{' '}
        <strong>{request.ceiling}</strong>. <Link to={`/exchanges/${x.exchangeId}`}>Full transcript</Link>
      </p>
      <Decide
        label={`exchange from ${x.initiatorUserId}`}
        reasonRequired
        decide={async (approved, note) => {
          const body = { approvalId: request.approvalId, ...(note ? { note } : {}) };
          const params = { path: { id: x.exchangeId } };
          return approved
            ? ok(api.POST('/api/v1/exchanges/{id}/approve', { params, body }))
            : ok(api.POST('/api/v1/exchanges/{id}/reject', { params, body }));
        }}
        onDone={props.onDone}
      />
    </article>
  );
}

function ToolCallItem(props: { a: Schemas['ToolApproval']; onDone: () => Promise<void> }) {
  const { a } = props;
  return (
    <article class="item" aria-labelledby={`t-${a.id}`}>
      <header>
        <h3 id={`t-${a.id}`}>
          {a.userId}'s assistant wants to call <code>{a.tool}</code>
        </h3>
        <small>
          on {a.upstream} · asked {when(a.createdAt)} · expires {when(a.expiresAt)}
        </small>
      </header>
      <p>
        <strong>Why you are asked:</strong> {a.reason}
      </p>
      <ToolCallArguments a={a} />
      <Decide
        label={`tool call ${a.tool}`}
        reasonRequired={false}
        decide={async (approved, note) => {
          const params = { path: { id: a.id } };
          const body = note ? { note } : {};
          return approved
            ? ok(api.POST('/api/v1/mcp/approvals/{id}/approve', { params, body }))
            : ok(api.POST('/api/v1/mcp/approvals/{id}/reject', { params, body }));
        }}
        onDone={props.onDone}
      />
    </article>
  );
}

/**
 * The arguments the call would run with (the approval's canonical JSON, pretty-printed) and their
 * digest. Rendered as text, never as HTML; an approval recorded before the arguments were kept
 * says so (only its digest is known).
 */
function ToolCallArguments(props: { a: Schemas['ToolApproval'] }) {
  const { a } = props;
  const digest = <code class="digest">{a.argumentsDigest}</code>;
  if (a.arguments === undefined)
    return (
      <p>
        <strong>The arguments:</strong>{' '}
        <em>arguments not recorded (approval made before arguments were kept)</em>. Only their digest is
        known: {digest}; a call with other arguments needs a new approval.
      </p>
    );
  return (
    <>
      <p>
        <strong>The arguments it would run with</strong>, exactly (JSON, indented for reading):
      </p>
      <pre class="json">{readable(a.arguments)}</pre>
      <p class="muted">
        They are bound to this approval by their digest {digest}: a call with other arguments needs a new
        approval.
      </p>
    </>
  );
}

/**
 * Characters that change how the text around them reads without showing themselves: C1 controls,
 * bidirectional marks, embeddings, overrides and isolates (they can make `"/"` look like
 * `"tmp.txt"`), zero-width and other invisible characters, line separators, and the invisible tag
 * characters (U+E0000–E007F) that can spell hidden text. Shown as their `\uXXXX` escapes: inside a
 * JSON string an escape means the same character, so what is shown is still the same JSON value.
 */
const HIDDEN =
  /[\u0080-\u009f\u00ad\u061c\u115f\u1160\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb\u{e0000}-\u{e007f}]/gu;

const escaped = (c: string): string =>
  Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');

/** Canonical JSON indented for reading (the same value), hidden characters escaped; not JSON: as is. */
function readable(canonical: string): string {
  let text = canonical;
  try {
    text = JSON.stringify(JSON.parse(canonical), null, 2);
  } catch {
    // Not JSON (never so from the proxy): shown as it is, as text.
  }
  return text.replace(HIDDEN, escaped);
}

/**
 * Approve / reject with a reason: required to reject an exchange (the initiator reads it in the
 * transcript); optional for a tool call, as the API takes a rejection without a note.
 */
function Decide(props: {
  label: string;
  reasonRequired: boolean;
  decide: (approved: boolean, note: string) => Promise<unknown>;
  onDone: () => Promise<void>;
}) {
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | undefined>();
  const [gone, setGone] = useState<string | undefined>();
  const run = async (approved: boolean) => {
    if (!approved && props.reasonRequired && !note.trim()) {
      setError(new Error('Give a reason to reject.'));
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await props.decide(approved, note.trim());
      await props.onDone();
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) {
        setGone('This was decided elsewhere or has expired.');
        await props.onDone();
      } else setError(e as Error);
    } finally {
      setBusy(false);
    }
  };
  if (gone) return <p role="status">{gone}</p>;
  return (
    <footer>
      <label>
        {props.reasonRequired
          ? 'Reason (sent with your decision; required to reject)'
          : 'Reason (optional; sent with your decision)'}
        <textarea
          rows={2}
          value={note}
          maxLength={4096}
          onInput={(e) => setNote((e.target as HTMLTextAreaElement).value)}
        />
      </label>
      {error ? <ErrorNote error={error} /> : null}
      <div class="actions">
        <button
          type="button"
          disabled={busy}
          aria-label={`Approve ${props.label}`}
          onClick={() => void run(true)}
        >
          Approve
        </button>
        <button
          type="button"
          class="secondary"
          disabled={busy}
          aria-label={`Reject ${props.label}`}
          onClick={() => void run(false)}
        >
          Reject
        </button>
      </div>
    </footer>
  );
}

const label = (action: string) => action.replaceAll('_', ' ');
