/**
 * Policies: the hierarchy per domain as a tree (enterprise → org → team → user), a policy's
 * content, the YAML editor (validated against the published JSON Schema as you type, errors on
 * their lines, the hierarchy check's violations too), a diff before applying, and "why": the
 * decision for a chosen user with the policy that decided and the trace along the user's path.
 */
import { useMemo, useRef, useState } from 'preact/hooks';
import { parse } from 'yaml';
import { ApiError, api, ok, type Schemas } from '../api/client';
import type { paths } from '../api/schema';
import { lineDiff } from '../diff';
import {
  checkPolicyFile,
  contentText,
  type LineError,
  lineOf,
  type PolicyFile,
  policyText,
} from '../policy-file';
import { isAdmin, useMe } from '../session';
import { Badge, ErrorNote, Show, useLoad, when } from '../ui';

type Policy = Schemas['Policy'];
const DOMAINS: Policy['domain'][] = [
  'models',
  'actions',
  'integrations',
  'agent-to-agent',
  'features',
  'data',
  'audit',
];
const SCOPES: Policy['scope'][] = ['enterprise', 'org', 'team', 'user'];

export function PoliciesPage() {
  const me = useMe();
  const [domain, setDomain] = useState<Policy['domain']>('actions');
  const [selected, setSelected] = useState<Policy | undefined>();
  const [editing, setEditing] = useState<{ policy?: Policy; text: string } | undefined>();
  const [loaded, reload] = useLoad(
    () => ok(api.GET('/api/v1/policies', { params: { query: { domain } } })),
    [domain],
  );
  const admin = isAdmin(me);
  return (
    <section>
      <h1>Policies</h1>
      <fieldset class="domains">
        <legend class="sr-only">Domain</legend>
        {DOMAINS.map((d) => (
          <button
            key={d}
            type="button"
            class={d === domain ? '' : 'outline'}
            aria-pressed={d === domain}
            onClick={() => {
              setDomain(d);
              setSelected(undefined);
              setEditing(undefined);
            }}
          >
            {d}
          </button>
        ))}
      </fieldset>
      <div class="split">
        <div>
          <h2>Hierarchy: {domain}</h2>
          <Show loaded={loaded} what="the policies">
            {(list) => (
              <Tree
                policies={list}
                selected={selected}
                onSelect={(p) => {
                  setSelected(p);
                  setEditing(undefined);
                }}
              />
            )}
          </Show>
          {admin ? (
            <button
              type="button"
              class="outline"
              onClick={() => {
                setSelected(undefined);
                setEditing({ text: newPolicyText(domain, me.tenantId) });
              }}
            >
              New {domain} policy
            </button>
          ) : null}
        </div>
        <div>
          {editing ? (
            <Editor
              key={editing.policy?.id ?? 'new'}
              policy={editing.policy}
              initial={editing.text}
              onDone={async (p) => {
                setEditing(undefined);
                setSelected(p);
                if (p.domain !== domain) setDomain(p.domain);
                else await reload();
              }}
              onCancel={() => setEditing(undefined)}
            />
          ) : selected ? (
            <Detail
              policy={selected}
              canEdit={admin}
              onEdit={() => setEditing({ policy: selected, text: policyText(selected) })}
            />
          ) : (
            <p class="muted">Choose a policy in the tree.</p>
          )}
        </div>
      </div>
      <Show loaded={loaded} what="the policies">
        {(list) => <UserPath policies={list} domain={domain} />}
      </Show>
      <Why />
    </section>
  );
}

function newPolicyText(domain: Policy['domain'], tenantId: string): string {
  return `scope: enterprise\nscopeId: ${tenantId}\ndomain: ${domain}\nname: ${domain} policy\nversion: 1.0.0\ncontent: {}\nchangeReason: \n`;
}

function Tree(props: { policies: Policy[]; selected: Policy | undefined; onSelect: (p: Policy) => void }) {
  const visible = props.policies.filter((p) => p.status !== 'deprecated');
  if (visible.length === 0) return <p class="muted">No policy in this domain.</p>;
  return (
    <ul class="tree" aria-label="Policy hierarchy">
      {SCOPES.map((scope) => {
        const at = visible.filter((p) => p.scope === scope);
        if (at.length === 0) return null;
        const ids = [...new Set(at.map((p) => p.scopeId))].sort();
        return (
          <li key={scope} class={`level level-${scope}`}>
            <strong>{scope}</strong>
            <ul>
              {ids.map((id) => (
                <li key={id}>
                  {id}
                  <ul>
                    {at
                      .filter((p) => p.scopeId === id)
                      .map((p) => (
                        <li key={p.id}>
                          <button
                            type="button"
                            class="link"
                            aria-current={props.selected?.id === p.id ? 'true' : undefined}
                            onClick={() => props.onSelect(p)}
                          >
                            {p.name} <small>v{p.version}</small>
                          </button>{' '}
                          {p.status !== 'active' ? <Badge tone="wait">{p.status}</Badge> : null}
                        </li>
                      ))}
                  </ul>
                </li>
              ))}
            </ul>
          </li>
        );
      })}
    </ul>
  );
}

function Detail(props: { policy: Policy; canEdit: boolean; onEdit: () => void }) {
  const p = props.policy;
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
      {props.canEdit ? (
        <button type="button" onClick={props.onEdit}>
          Edit
        </button>
      ) : null}
    </article>
  );
}

function Editor(props: {
  policy: Policy | undefined;
  initial: string;
  onDone: (p: Policy) => Promise<void>;
  onCancel: () => void;
}) {
  const [text, setText] = useState(props.initial);
  const [serverErrors, setServerErrors] = useState<LineError[]>([]);
  const [failure, setFailure] = useState<Error | undefined>();
  const [review, setReview] = useState<PolicyFile | undefined>();
  const [busy, setBusy] = useState(false);
  const gutter = useRef<HTMLDivElement>(null);
  const checked = useMemo(() => checkPolicyFile(text), [text]);
  const errors = [...checked.errors, ...serverErrors];
  const errorLines = new Set(errors.map((e) => e.line));
  const lines = text.split('\n').length;
  const p = props.policy;
  const sameTarget = (f: PolicyFile) =>
    p !== undefined &&
    f.scope === p.scope &&
    f.scopeId === p.scopeId &&
    f.domain === p.domain &&
    f.name === p.name;
  const before = p ? contentText((parse(p.content) as Record<string, unknown>) ?? {}) : '';

  const apply = async (f: PolicyFile) => {
    setBusy(true);
    setFailure(undefined);
    setServerErrors([]);
    try {
      const content = contentText(f.content);
      const changeReason = f.changeReason?.trim() || 'changed in the console';
      const saved =
        p && sameTarget(f)
          ? await ok(
              api.PUT('/api/v1/policies/{id}', {
                params: { path: { id: p.id } },
                body: { content, changeReason, ...(f.version !== p.version ? { version: f.version } : {}) },
              }),
            )
          : await ok(
              api.POST('/api/v1/policies', {
                body: {
                  scope: f.scope,
                  scopeId: f.scopeId,
                  domain: f.domain,
                  name: f.name,
                  version: f.version,
                  content,
                  changeReason,
                },
              }),
            );
      await props.onDone(saved);
    } catch (e) {
      setReview(undefined);
      if (
        e instanceof ApiError &&
        e.body?.error === 'POLICY_HIERARCHY_VIOLATION' &&
        Array.isArray(e.body.detail)
      ) {
        setServerErrors(
          (e.body.detail as { key: string; reason: string; parentScope: string; parentValue: unknown }[]).map(
            (v) => ({
              line: lineOf(text, ['content', ...v.key.split('.')]) ?? lineOf(text, ['content']),
              message: `content.${v.key}: ${v.reason} (the ${v.parentScope} allows ${JSON.stringify(v.parentValue)})`,
            }),
          ),
        );
      } else setFailure(e as Error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <article class="editor">
      <header>
        <h2>{p ? `Edit ${p.name}` : 'New policy'}</h2>
        <small>
          A policy file (the same YAML as <code>agentgov policy apply</code> reads), checked against the
          published JSON Schema as you type.
        </small>
      </header>
      <div class="code">
        <div class="gutter" ref={gutter} aria-hidden="true">
          {Array.from({ length: lines }, (_, i) => (
            <span key={String(i)} class={errorLines.has(i + 1) ? 'err' : ''}>
              {i + 1}
            </span>
          ))}
        </div>
        <textarea
          aria-label="Policy YAML"
          aria-invalid={errors.length > 0}
          aria-describedby="policy-errors"
          spellcheck={false}
          rows={Math.max(12, lines + 1)}
          value={text}
          onInput={(e) => {
            setText((e.target as HTMLTextAreaElement).value);
            setServerErrors([]);
            setReview(undefined);
          }}
          onScroll={(e) => {
            if (gutter.current) gutter.current.scrollTop = (e.target as HTMLTextAreaElement).scrollTop;
          }}
        />
      </div>
      <div id="policy-errors" aria-live="polite">
        {errors.length === 0 ? (
          <p class="valid">✓ Valid policy file</p>
        ) : (
          <ul class="errors">
            {errors.map((e, i) => (
              <li key={String(i)}>
                {e.line ? `Line ${e.line}: ` : ''}
                {e.message}
              </li>
            ))}
          </ul>
        )}
      </div>
      {failure ? <ErrorNote error={failure} /> : null}
      {review ? (
        <section aria-labelledby="diff-title" class="diff">
          <h3 id="diff-title">Review the change</h3>
          <p>
            {p && sameTarget(review)
              ? `Updates ${p.name} (${p.scope} ${p.scopeId}).`
              : `Creates ${review.name} at ${review.scope} ${review.scopeId}.`}
          </p>
          <pre>
            {lineDiff(p && sameTarget(review) ? before : '', contentText(review.content)).map((l, i) => (
              <span key={String(i)} class={l.op === '+' ? 'add' : l.op === '-' ? 'del' : ''}>
                {l.op} {l.text}
                {'\n'}
              </span>
            ))}
          </pre>
          <div class="actions">
            <button type="button" disabled={busy} aria-busy={busy} onClick={() => void apply(review)}>
              Apply
            </button>
            <button type="button" class="secondary" onClick={() => setReview(undefined)}>
              Back to editing
            </button>
          </div>
        </section>
      ) : (
        <div class="actions">
          <button
            type="button"
            disabled={!checked.file || serverErrors.length > 0}
            onClick={() => setReview(checked.file)}
          >
            Review changes
          </button>
          <button type="button" class="secondary" onClick={props.onCancel}>
            Cancel
          </button>
        </div>
      )}
    </article>
  );
}

/**
 * The policies on a user's path (enterprise → org → team → user) in this domain, in the order the
 * effective policy is computed from them: each level can only restrict what the one above allows.
 */
function UserPath(props: { policies: Policy[]; domain: Policy['domain'] }) {
  const me = useMe();
  const [who, setWho] = useState({ org: me.orgUnit ?? '', team: me.team ?? '', user: me.userId });
  const levels: [Policy['scope'], string][] = [
    ['enterprise', me.tenantId],
    ['org', who.org],
    ['team', who.team],
    ['user', who.user],
  ];
  const field = (k: keyof typeof who, label: string) => (
    <label>
      {label}
      <input
        value={who[k]}
        autocomplete="off"
        onInput={(e) => setWho({ ...who, [k]: (e.target as HTMLInputElement).value })}
      />
    </label>
  );
  return (
    <article>
      <h2>A user's path: {props.domain}</h2>
      <p class="muted">
        The active policies that make a user's effective {props.domain} policy, from the top: each level may
        only restrict what the level above allows (the hierarchy check refuses anything looser), so the most
        restrictive value of each key along this path is the one that applies.
      </p>
      <div class="grid">
        {field('org', 'Org')}
        {field('team', 'Team')}
        {field('user', 'User')}
      </div>
      <ol class="path">
        {levels.map(([scope, id]) => {
          const here = props.policies.filter(
            (p) => p.status === 'active' && p.scope === scope && p.scopeId === id && id,
          );
          return (
            <li key={scope}>
              <strong>
                {scope} {id || '—'}
              </strong>
              {here.length === 0 ? (
                <span class="muted"> · no policy: inherits</span>
              ) : (
                here.map((p) => (
                  <div key={p.id}>
                    {p.name} <small>v{p.version}</small>
                    <pre class="yaml">{p.content}</pre>
                  </div>
                ))
              )}
            </li>
          );
        })}
      </ol>
    </article>
  );
}

const SAMPLES: Record<string, string> = {
  actions: '{"tool": "send_mail"}',
  models: '{"provider": "openai", "model": "gpt-4o", "classification_level": "internal"}',
  data: '{"classification_level": "confidential", "destination": "partner"}',
  features: '{"feature": "briefings"}',
  integrations: '{"action": "tracker_update", "context": {"targetSystem": "jira"}}',
  'agent-to-agent':
    '{"exchange_type": "commitment_request", "initiator_tenant_id": "acme", "responder_tenant_id": "acme", "initiator_org_unit": "eng", "responder_org_unit": "sales", "classification_level": "internal"}',
};

type Explanation = Schemas['DecisionExplanation'];
type ExplainBody = NonNullable<
  paths['/api/v1/decisions/explain']['post']['requestBody']
>['content']['application/json'];

const show = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));
const policyLabel = (p: { name: string; scope: string; scopeId: string; version: string }) =>
  `${p.name} (${p.scope} ${p.scopeId}, v${p.version})`;

/**
 * "Why was this denied?" for a chosen user (the API answers for users in the caller's scope: the
 * tenant, their org, their team, themselves): the decision, the policy that decided, and the
 * trace along enterprise → org → team → user — each policy's contribution to the effective policy
 * and the decision after each level.
 */
function Why() {
  const me = useMe();
  const [userId, setUserId] = useState(me.userId);
  const [domain, setDomain] = useState<ExplainBody['domain']>('actions');
  const [input, setInput] = useState(SAMPLES.actions as string);
  const [result, setResult] = useState<Explanation>();
  const [error, setError] = useState<Error | undefined>();
  const ask = async () => {
    setError(undefined);
    setResult(undefined);
    try {
      const body = { userId: userId.trim(), domain, input: JSON.parse(input) } as ExplainBody;
      setResult(await ok(api.POST('/api/v1/decisions/explain', { body })));
    } catch (e) {
      setError(e instanceof SyntaxError ? new Error(`The input is not JSON: ${e.message}`) : (e as Error));
    }
  };
  return (
    <article>
      <h2>Why? A decision for a user</h2>
      <p class="muted">
        The decision for a user you may see (yourself; your team, org or tenant by your role), the policy that
        decided, and what each level of the user's path contributed. Asking is audited as a policy decision.
      </p>
      <div class="grid">
        <label>
          User
          <input
            value={userId}
            autocomplete="off"
            onInput={(e) => setUserId((e.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          Domain
          <select
            value={domain}
            onChange={(e) => {
              const d = (e.target as HTMLSelectElement).value as ExplainBody['domain'];
              setDomain(d);
              setInput(SAMPLES[d] ?? '{}');
            }}
          >
            {Object.keys(SAMPLES).map((d) => (
              <option key={d} value={d}>
                {d}
              </option>
            ))}
          </select>
        </label>
        <label>
          Input (JSON)
          <textarea
            rows={3}
            value={input}
            onInput={(e) => setInput((e.target as HTMLTextAreaElement).value)}
          />
        </label>
      </div>
      <button type="button" onClick={() => void ask()}>
        Explain
      </button>
      {error ? <ErrorNote error={error} /> : null}
      {result ? <Explained x={result} /> : null}
    </article>
  );
}

function Explained(props: { x: Explanation }) {
  const { x } = props;
  return (
    <div role="status" class="explained">
      <p>
        For {x.userId}:{' '}
        <Badge tone={x.decision.allow ? 'ok' : 'bad'}>{x.decision.allow ? 'allowed' : 'denied'}</Badge>{' '}
        {x.decision.reason}
      </p>
      <p>
        Decided by:{' '}
        {x.decidedBy ? (
          <strong>{policyLabel(x.decidedBy)}</strong>
        ) : (
          'the defaults (no policy changed the decision)'
        )}
      </p>
      {x.engine !== 'builtin' ? (
        <p class="muted">
          Decisions are enforced by the {x.engine} engine; this trace is the built-in engine's reading of the
          same policies.
        </p>
      ) : null}
      <ol class="path trace" aria-label="Decision trace">
        {x.trace.map((level) => (
          <li key={`${level.scope}:${level.scopeId}`}>
            <strong>
              {level.scope} {level.scopeId}
            </strong>
            {level.policies.length === 0 ? <span class="muted"> · no policy: inherits</span> : null}
            {level.policies.map((p) => (
              <div key={p.id}>
                {p.name} <small>v{p.version}</small>:{' '}
                {p.contributed.length === 0
                  ? 'restricts nothing further'
                  : p.contributed.map((c) => `${c.key} = ${show(c.value)}`).join('; ')}
              </div>
            ))}
            <div>
              <small>
                after this level: {level.decision.allow ? 'allowed' : 'denied'} — {level.decision.reason}
              </small>
            </div>
          </li>
        ))}
      </ol>
      <details>
        <summary>Effective policy and constraints</summary>
        <pre class="json">{JSON.stringify(x.effective, null, 2)}</pre>
        <pre class="json">{JSON.stringify(x.decision.constraints, null, 2)}</pre>
      </details>
    </div>
  );
}
