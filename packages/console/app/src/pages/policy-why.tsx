/**
 * "Why?" on the Policies page: the decision for a chosen user in a domain (`POST
 * /api/v1/decisions/explain`), the policy that decided, and the trace along enterprise → org →
 * team → user with each policy's contribution and the decision after each level.
 */
import { useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../api/client';
import type { paths } from '../api/schema';
import { useMe } from '../session';
import { Badge, ErrorNote } from '../ui';

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
export function Why() {
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
