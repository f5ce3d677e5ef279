/**
 * Group commit of the `policy_decision` entries of `POST /decisions`: the entries appended during
 * one turn of the event loop are written together at its end (`setImmediate`), one `appendBatch`
 * per tenant, when the sink has one (an audit log does; a sink without it appends each entry).
 * Each caller's promise settles with its own entry only once its batch is written, so an answer is
 * still sent only after its entry is in the log — nothing acknowledged can be missing.
 *
 * A batch refused for an invalid entry wrote nothing (`appendBatch` validates every input first):
 * each entry is then appended alone, so each caller gets what its own append would have answered.
 * Any other failure of a batch (atomic per tenant: none of it written) is each of its callers'.
 */
import {
  type AuditEntry,
  type AuditEntryInput,
  type AuditSink,
  type GovernanceError,
  ValidationError,
} from '@agentgov/core';
import { err, ok, type Result } from 'neverthrow';

type Appended = Result<AuditEntry, GovernanceError>;

/** An audit sink that can append many entries in one write (an AuditLog of @agentgov/audit). */
interface BatchSink extends AuditSink {
  appendBatch(inputs: readonly AuditEntryInput[]): Promise<Result<AuditEntry[], GovernanceError>>;
}

interface Waiting {
  entry: AuditEntryInput;
  settle(result: Appended | Promise<Appended>): void;
  fail(error: unknown): void;
}

/** `sink.append`, group-committed when `sink` has `appendBatch` (see the module comment). */
export function groupCommit(sink: AuditSink): (entry: AuditEntryInput) => Promise<Appended> {
  if (typeof (sink as Partial<BatchSink>).appendBatch !== 'function') return (entry) => sink.append(entry);
  const batchSink = sink as BatchSink;
  /** The entries of this turn, per tenant, in the order they were appended. */
  let queued: Map<string, Waiting[]> | undefined;
  const flush = () => {
    const groups = queued;
    queued = undefined;
    if (groups) for (const waiting of groups.values()) void commit(batchSink, waiting);
  };
  return (entry) =>
    new Promise<Appended>((resolve, reject) => {
      if (!queued) {
        queued = new Map();
        setImmediate(flush);
      }
      const waiting: Waiting = { entry, settle: resolve, fail: reject };
      const group = queued.get(entry.tenantId);
      if (group) group.push(waiting);
      else queued.set(entry.tenantId, [waiting]);
    });
}

/** Writes one tenant's entries of a turn and settles each caller with its own result. */
async function commit(sink: BatchSink, waiting: Waiting[]): Promise<void> {
  if (waiting.length === 1) {
    appendAlone(sink, waiting[0] as Waiting);
    return;
  }
  let written: Result<AuditEntry[], GovernanceError>;
  try {
    written = await sink.appendBatch(waiting.map((w) => w.entry));
  } catch (error) {
    for (const w of waiting) w.fail(error);
    return;
  }
  if (written.isOk()) {
    const entries = written.value;
    waiting.forEach((w, i) => {
      w.settle(ok(entries[i] as AuditEntry));
    });
  } else if (written.error instanceof ValidationError) {
    for (const w of waiting) appendAlone(sink, w);
  } else {
    for (const w of waiting) w.settle(err(written.error));
  }
}

/** One entry appended on its own; what the sink answers (or throws) is the caller's. */
function appendAlone(sink: AuditSink, w: Waiting): void {
  try {
    w.settle(sink.append(w.entry));
  } catch (error) {
    w.fail(error);
  }
}
