/**
 * The outbox of tracker writes: a write is stored (with the delivery that caused it) before any
 * attempt, then delivered by `drain()` — right after the webhook is answered (`kick`) and on an
 * interval. A tracker outage never loses a write: retryable failures (timeouts, 408, 429, 5xx,
 * network errors, no tracker configured yet) are retried forever with capped exponential backoff
 * (or the tracker's Retry-After when longer); only a permanent failure (404 ticket, 400 transition
 * not available, other 4xx) ends in `failed`, which `retry()` re-queues. Each final outcome is
 * audited as `tool_invocation` `{tool, ticketId, outcome}`. Several processes may drain the same
 * store: writes are claimed with a lease, so each is attempted by one worker at a time.
 */
import {
  type AuditSink,
  type Clock,
  errorOf,
  type Logger,
  silentLogger,
  systemClock,
  type TrackerClient,
  TrackerRequestError,
  type TrackerWrite,
  type WorkTrackingStore,
} from '@agentgov/core';

export interface TrackerOutboxOptions {
  store: WorkTrackingStore;
  audit: AuditSink;
  /** The tracker client of a tenant; undefined while none is configured (writes wait). */
  clientFor(tenantId: string): Promise<TrackerClient | undefined>;
  clock?: Clock;
  logger?: Logger;
  /** How long a claimed write is reserved for one attempt (default 60 s). */
  leaseMs?: number;
  /** Backoff after the first failure, doubled per attempt (default 5 s), capped at `maxBackoffMs` (default 15 min). */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Writes claimed per round (default 20). */
  batchSize?: number;
}

export interface DrainReport {
  delivered: number;
  retrying: number;
  failed: number;
}

export class TrackerOutbox {
  readonly #o: Required<Omit<TrackerOutboxOptions, 'clock' | 'logger'>> & { clock: Clock; logger: Logger };
  #timer: ReturnType<typeof setInterval> | undefined;
  #draining: Promise<DrainReport> | undefined;
  #again = false;

  constructor(options: TrackerOutboxOptions) {
    this.#o = {
      leaseMs: 60_000,
      backoffMs: 5_000,
      maxBackoffMs: 15 * 60_000,
      batchSize: 20,
      ...options,
      clock: options.clock ?? systemClock,
      logger: options.logger ?? silentLogger,
    };
  }

  /** Delivers every write that is due now; one drain at a time (a call during a drain joins it and runs once more). */
  drain(signal?: AbortSignal): Promise<DrainReport> {
    if (this.#draining) {
      this.#again = true;
      return this.#draining;
    }
    const run = async (): Promise<DrainReport> => {
      const total: DrainReport = { delivered: 0, retrying: 0, failed: 0 };
      do {
        this.#again = false;
        for (let round = 0; round < 1000; round++) {
          signal?.throwIfAborted();
          const now = this.#o.clock.now();
          const claimed = await this.#o.store.claimWrites(
            now.toISOString(),
            new Date(now.getTime() + this.#o.leaseMs).toISOString(),
            this.#o.batchSize,
          );
          if (claimed.length === 0) break;
          for (const w of claimed) total[await this.#attempt(w, signal)]++;
        }
      } while (this.#again);
      return total;
    };
    this.#draining = run().finally(() => {
      this.#draining = undefined;
    });
    return this.#draining;
  }

  /** Starts a drain soon without waiting for it (after a webhook recorded writes). */
  kick(): void {
    this.drain().catch((error: unknown) =>
      this.#o.logger.error('tracker outbox drain failed', { error: String(error) }),
    );
  }

  /** Drains every `intervalMs` (unref'd timer) until `stop()`. */
  start(intervalMs = 5_000): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => this.kick(), intervalMs);
    this.#timer.unref?.();
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#draining?.catch(() => {});
  }

  /** Re-queues a failed write for an immediate attempt; NOT_FOUND when absent or not failed. */
  async retry(tenantId: string, id: string): Promise<TrackerWrite> {
    const w = await this.#o.store.getWrite(tenantId, id);
    if (w?.state !== 'failed') throw errorOf('NOT_FOUND', `No failed tracker write ${id}`);
    const again: TrackerWrite = { ...w, state: 'pending', nextAttemptAt: this.#o.clock.now().toISOString() };
    await this.#o.store.updateWrite(again);
    return again;
  }

  async #attempt(w: TrackerWrite, signal?: AbortSignal): Promise<keyof DrainReport> {
    const attempts = w.attempts + 1;
    try {
      const client = await this.#o.clientFor(w.tenantId);
      if (!client)
        throw new TrackerRequestError('no tracker is configured for the tenant', { retryable: true });
      const options = signal ? { signal } : {};
      let detail: Record<string, unknown> = {};
      if (w.tool === 'tracker_update') {
        const { id } = await client.addComment(w.ticketId, w.comment ?? '', options);
        detail = { commentId: id };
      } else {
        const name = w.transitionName ?? '';
        const t = await client.findTransition(w.ticketId, name, options);
        if (!t)
          throw new TrackerRequestError(`transition '${name}' is not available for ${w.ticketId}`, {
            status: 400,
            retryable: false,
          });
        await client.transition(w.ticketId, t.id, options);
        detail = { transition: t.name, transitionId: t.id };
      }
      const now = this.#o.clock.now().toISOString();
      await this.#o.store.updateWrite({
        ...w,
        state: 'delivered',
        attempts,
        deliveredAt: now,
        lastError: null,
      });
      await this.#audit(w, 'success', { ...detail, attempts });
      return 'delivered';
    } catch (error) {
      if (signal?.aborted) throw error;
      const retryable = !(error instanceof TrackerRequestError) || error.retryable;
      const message = error instanceof Error ? error.message : String(error);
      if (!retryable) {
        await this.#o.store.updateWrite({ ...w, state: 'failed', attempts, lastError: message });
        await this.#audit(w, 'error', { attempts, error: message });
        return 'failed';
      }
      const backoff = Math.min(this.#o.backoffMs * 2 ** (attempts - 1), this.#o.maxBackoffMs);
      const wait = Math.max(backoff, error instanceof TrackerRequestError ? (error.retryAfterMs ?? 0) : 0);
      const next = new Date(this.#o.clock.now().getTime() + wait).toISOString();
      await this.#o.store.updateWrite({ ...w, attempts, nextAttemptAt: next, lastError: message });
      this.#o.logger.warn('tracker write will be retried', { writeId: w.id, attempts, error: message, next });
      return 'retrying';
    }
  }

  async #audit(w: TrackerWrite, outcome: 'success' | 'error', extra: Record<string, unknown>): Promise<void> {
    const r = await this.#o.audit.append({
      tenantId: w.tenantId,
      userId: w.userId,
      actionType: 'tool_invocation',
      actionDetail: {
        tool: w.tool,
        ticketId: w.ticketId,
        outcome,
        writeId: w.id,
        deliveryId: w.deliveryId,
        trigger: 'pr_merged',
        ...extra,
      },
      dataClassification: 'internal',
      policyApplied: w.policyApplied || 'integrations',
      policyResult: 'allow',
      policyReason: w.policyReason,
      outcome,
      requestId: w.requestId,
    });
    if (r.isErr())
      this.#o.logger.error('audit of a tracker write failed', { writeId: w.id, error: r.error.message });
  }
}
