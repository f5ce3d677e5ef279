/**
 * The policy editor of the Policies page: the YAML of a policy file, validated against the
 * published JSON Schema as you type (errors on their lines, the hierarchy check's violations from
 * the server too), and the diff of the content to review before it is applied (PUT for the same
 * policy, POST for a new one).
 */
import { useMemo, useRef, useState } from 'preact/hooks';
import { parse } from 'yaml';
import { ApiError, api, ok, type Schemas } from '../api/client';
import { lineDiff } from '../diff';
import {
  checkPolicyFile,
  contentText,
  type LineError,
  lineOf,
  type PolicyFile,
  statusError,
} from '../policy-file';
import { ErrorNote } from '../ui';

type Policy = Schemas['Policy'];

export function Editor(props: {
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
  const p = props.policy;
  const sameTarget = (f: PolicyFile) =>
    p !== undefined &&
    f.scope === p.scope &&
    f.scopeId === p.scopeId &&
    f.domain === p.domain &&
    f.name === p.name;
  // A status the API cannot take from here (PUT and POST have none; DELETE deprecates): refused
  // on its line rather than dropped without a word.
  const unappliable = checked.file
    ? statusError(text, checked.file, sameTarget(checked.file) ? p : undefined)
    : undefined;
  const errors = [...checked.errors, ...(unappliable ? [unappliable] : []), ...serverErrors];
  const errorLines = new Set(errors.map((e) => e.line));
  const lines = text.split('\n').length;
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
            disabled={!checked.file || errors.length > 0}
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
