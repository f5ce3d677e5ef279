/**
 * Checkpoints on the audit page: the latest signed checkpoint, the check in this browser that the
 * log only grew since a checkpoint you kept (consistency proof, WebCrypto), the checkpoint this
 * browser keeps per tenant (the last one it verified), and the list of checks a verification shows.
 */
import { useState } from 'preact/hooks';
import { ApiError, api, ok } from '../api/client';
import { ErrorNote, Show, useLoad, when } from '../ui';
import { type Check, verifyGrowth } from '../verify';

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
export function keep(tenantId: string, c: { treeSize: number; rootHash: string }): void {
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
export function Checkpoints(props: { tenantId: string }) {
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

export function Checks(props: { checks: Check[]; good: string; bad: string }) {
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
