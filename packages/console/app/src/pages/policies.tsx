/**
 * Policies: the hierarchy per domain as a tree (enterprise → org → team → user), a policy's
 * content, the YAML editor (validated against the published JSON Schema as you type, errors on
 * their lines, the hierarchy check's violations too), a diff before applying, and "why": the
 * decision for a chosen user with the policy that decided and the trace along the user's path.
 * This file holds the page, the tree and a user's path; a policy's detail (Edit, Deprecate) is in
 * `policy-detail.tsx`, the editor with its diff in `policy-editor.tsx`, the "Why?" panel in
 * `policy-why.tsx`.
 */
import { useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../api/client';
import { policyText } from '../policy-file';
import { mayManage, policyHome, useMe } from '../session';
import { Badge, Show, useLoad } from '../ui';
import { Detail } from './policy-detail';
import { Editor } from './policy-editor';
import { Why } from './policy-why';

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
  // What userinfo says the caller manages: policies at this node and below it (none: no button).
  const home = policyHome(me);
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
          {home ? (
            <button
              type="button"
              class="outline"
              onClick={() => {
                setSelected(undefined);
                setEditing({ text: newPolicyText(domain, home) });
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
              key={selected.id}
              policy={selected}
              canManage={mayManage(me, selected)}
              onEdit={() => setEditing({ policy: selected, text: policyText(selected) })}
              onDeprecated={async (p) => {
                setSelected(p);
                await reload();
              }}
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

/** A new policy's file, at the node the caller manages (their own tenant, org, team or user). */
function newPolicyText(domain: Policy['domain'], at: { scope: Policy['scope']; scopeId: string }): string {
  return `scope: ${at.scope}\nscopeId: ${at.scopeId}\ndomain: ${domain}\nname: ${domain} policy\nversion: 1.0.0\ncontent: {}\nchangeReason: \n`;
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
