/**
 * Scheduled pulls of the tracker and code-host connectors into task discovery. Each `tick` claims
 * the connectors that are due (`ConnectorStore.claimSync`: a lease, so two processes never pull
 * one connector at once), pulls each through its TaskSource and hands the items to
 * `TaskService.discoverFrom` — the same discovery and correlation every other source goes through.
 * - success: `lastSyncAt` = now, failures reset, status back to `active`, next pull after the
 *   connector's `syncIntervalSeconds` (config; default 300);
 * - failure: next try after an exponential backoff (`backoffMs` × 2^(failures−1), capped at
 *   `maxBackoffMs`); after `errorAfter` consecutive failures the status is `error` with the
 *   reason in `errorDetails` (so `/status` turns `degraded`), until the next success.
 * A connector whose config does not enable pulling (no `baseUrl` / `apiBaseUrl`, or no `users`) is
 * left alone and looked at again after its interval.
 */
import {
  type Clock,
  type Connector,
  type ConnectorStore,
  type Logger,
  type SecretStore,
  systemClock,
} from '@agentgov/core';
import { z } from 'zod';
import type { HttpAuth } from '../http-tracker';
import type { TaskService, TaskSource } from '../tasks';
import { CodehostReviewSource } from './codehost-source';
import type { PullHttpOptions } from './pull-http';
import { JiraAssignedSource } from './tracker-source';

const Users = z.record(z.string().min(1), z.string().min(1).max(255)).default({});
const Interval = z.number().int().min(10).max(86_400).default(300);

/** The pull settings of a tracker connector's config (beside its webhook settings). */
export const TrackerPullConfigSchema = z.object({
  /** Tracker base URL (Jira-compatible REST API); pulling needs it. */
  baseUrl: z.url().optional(),
  /** With a username the token is sent as HTTP Basic `username:token`, else as a bearer token. */
  username: z.string().min(1).max(255).optional(),
  /** Tracker account → agentgov user id: whose assigned issues are pulled. */
  users: Users,
  syncIntervalSeconds: Interval,
});
/** The pull settings of a code-host connector's config. */
export const CodehostPullConfigSchema = z.object({
  /** API base URL (`https://api.github.com`, `https://gitea.example.com/api/v1`); pulling needs it. */
  apiBaseUrl: z.url().optional(),
  /** Code-host login → agentgov user id: whose review requests are pulled. */
  users: Users,
  /** `owner/repo` names to list pull requests of (GitHub and Gitea); without, GitHub search. */
  repositories: z
    .array(z.string().regex(/^[\w.-]+\/[\w.-]+$/, 'must be owner/repo'))
    .max(100)
    .optional(),
  syncIntervalSeconds: Interval,
});

/** Connector types that are pulled on a schedule. */
export const PULLED_CONNECTOR_TYPES = ['tracker', 'codehost'] as const;

export interface ConnectorSyncOptions extends PullHttpOptions {
  connectors: Pick<ConnectorStore, 'claimSync' | 'finishSync'>;
  secrets: SecretStore;
  tasks: Pick<TaskService, 'discoverFrom'>;
  clock?: Clock;
  logger?: Logger;
  /** First retry after a failure, in ms (default 30 000), doubled per further failure… */
  backoffMs?: number;
  /** …up to this (default 3 600 000). */
  maxBackoffMs?: number;
  /** Consecutive failures that put the connector in `error` (default 3). */
  errorAfter?: number;
  /** How long a claimed pull may take before another process may take it over (default 300 000). */
  leaseMs?: number;
  /** Connectors claimed per tick (default 20). */
  batchSize?: number;
  /** Pulls run at once (default 4): one slow tracker does not hold up every other tenant's. */
  concurrency?: number;
  /**
   * How long one pull may take in all, pages included (default 80% of `leaseMs`), and never past
   * 90% of its lease, which runs from the tick that claimed it (a pull that waited for a worker
   * has less left): it ends before its lease does, so no other process takes the connector while
   * it runs. Past it, the pull is a failure ("took longer than …"); one whose lease is nearly
   * over when a worker is free is not started (its lease ends, a later round takes it).
   */
  pullDeadlineMs?: number;
}

export interface SyncOutcome {
  tenantId: string;
  connectorId: string;
  type: Connector['type'];
  outcome: 'synced' | 'failed' | 'skipped';
  /** Items discovered (synced), the reason (failed). */
  items?: number;
  error?: string;
  status?: 'active' | 'error';
}

export class ConnectorSync {
  readonly #o: ConnectorSyncOptions;
  readonly #clock: Clock;
  readonly #leaseMs: number;
  readonly #pullDeadlineMs: number;
  constructor(options: ConnectorSyncOptions) {
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
    this.#leaseMs = options.leaseMs ?? 300_000;
    this.#pullDeadlineMs = options.pullDeadlineMs ?? Math.floor(this.#leaseMs * 0.8);
  }

  /** Pulls every connector due now; resolves with what happened to each. */
  async tick(signal?: AbortSignal): Promise<SyncOutcome[]> {
    const now = this.#clock.now();
    const leaseMs = this.#leaseMs;
    // Pulls end this much before the lease, whenever they start.
    const pullsEndBy = now.getTime() + Math.floor(leaseMs * 0.9);
    const claims = await this.#o.connectors.claimSync(
      now.toISOString(),
      new Date(now.getTime() + leaseMs).toISOString(),
      this.#o.batchSize ?? 20,
      PULLED_CONNECTOR_TYPES,
    );
    // A few at a time, in claim order (oldest due first); the answer keeps that order.
    const out: SyncOutcome[] = new Array(claims.length);
    let next = 0;
    const worker = async () => {
      while (next < claims.length && !signal?.aborted) {
        const i = next++;
        const { connector, failures } = claims[i] as (typeof claims)[number];
        out[i] = await this.#pull(connector, failures, pullsEndBy, signal);
      }
    };
    const workers = Math.max(1, Math.min(this.#o.concurrency ?? 4, claims.length));
    await Promise.all(Array.from({ length: workers }, worker));
    return out.filter((o) => o !== undefined);
  }

  async #pull(c: Connector, failures: number, endBy: number, signal?: AbortSignal): Promise<SyncOutcome> {
    const base = { tenantId: c.tenantId, connectorId: c.id, type: c.type };
    const deadlineMs = Math.min(this.#pullDeadlineMs, endBy - this.#clock.now().getTime());
    // Too little of the lease left to pull: the claim lapses, a later round takes it.
    if (deadlineMs < 1000) return { ...base, outcome: 'skipped' };
    const intervalMs = intervalOf(c) * 1000;
    let source: TaskSource | undefined;
    try {
      source = await this.#sourceOf(c);
    } catch (error) {
      return this.#failed(c, failures, error);
    }
    if (!source) {
      const at = this.#clock.now();
      await this.#o.connectors.finishSync(c.tenantId, c.id, {
        at: at.toISOString(),
        ok: false,
        failures,
        status: c.status === 'error' ? 'error' : 'active',
        errorDetails: c.errorDetails,
        nextSyncAt: new Date(at.getTime() + intervalMs).toISOString(),
      });
      return { ...base, outcome: 'skipped' };
    }
    const deadline = (this.#o.timeoutSignal ?? ((ms) => AbortSignal.timeout(ms)))(deadlineMs);
    try {
      const found = await this.#o.tasks.discoverFrom(
        c.tenantId,
        source,
        signal ? AbortSignal.any([signal, deadline]) : deadline,
      );
      const at = this.#clock.now();
      await this.#o.connectors.finishSync(c.tenantId, c.id, {
        at: at.toISOString(),
        ok: true,
        failures: 0,
        status: 'active',
        errorDetails: null,
        nextSyncAt: new Date(at.getTime() + intervalMs).toISOString(),
      });
      if (c.status === 'error') this.#o.logger?.info('connector recovered', base);
      return { ...base, outcome: 'synced', items: found.length, status: 'active' };
    } catch (error) {
      if (signal?.aborted) throw error;
      if (deadline.aborted)
        return this.#failed(
          c,
          failures,
          new Error(`the pull took longer than ${deadlineMs / 1000} s (pages included); it was stopped`),
        );
      return this.#failed(c, failures, error);
    }
  }

  async #failed(c: Connector, failures: number, error: unknown): Promise<SyncOutcome> {
    const n = failures + 1;
    const at = this.#clock.now();
    const reason = `${c.type} pull failed: ${error instanceof Error ? error.message : String(error)}`.slice(
      0,
      1000,
    );
    const backoff = Math.min(
      (this.#o.backoffMs ?? 30_000) * 2 ** Math.min(n - 1, 30),
      this.#o.maxBackoffMs ?? 3_600_000,
    );
    const status = n >= (this.#o.errorAfter ?? 3) ? 'error' : c.status === 'error' ? 'error' : 'active';
    await this.#o.connectors.finishSync(c.tenantId, c.id, {
      at: at.toISOString(),
      ok: false,
      failures: n,
      status,
      errorDetails: status === 'error' ? reason : null,
      nextSyncAt: new Date(at.getTime() + backoff).toISOString(),
    });
    this.#o.logger?.warn('connector pull failed', {
      tenantId: c.tenantId,
      connectorId: c.id,
      failures: n,
      status,
      error: reason,
    });
    return {
      tenantId: c.tenantId,
      connectorId: c.id,
      type: c.type,
      outcome: 'failed',
      error: reason,
      status,
    };
  }

  /** The connector's TaskSource; undefined when its config does not enable pulling; throws on bad config or credentials. */
  async #sourceOf(c: Connector): Promise<TaskSource | undefined> {
    const http: PullHttpOptions = {
      ...(this.#o.fetch ? { fetch: this.#o.fetch } : {}),
      ...(this.#o.timeoutMs ? { timeoutMs: this.#o.timeoutMs } : {}),
      ...(this.#o.timeoutSignal ? { timeoutSignal: this.#o.timeoutSignal } : {}),
    };
    if (c.type === 'tracker') {
      const cfg = parseConfig(TrackerPullConfigSchema, c.config);
      if (!cfg.baseUrl || Object.keys(cfg.users).length === 0) return undefined;
      const token = await this.#token(c);
      const auth: HttpAuth = cfg.username
        ? { type: 'basic', username: cfg.username, token }
        : { type: 'bearer', token };
      return new JiraAssignedSource({
        ...http,
        baseUrl: cfg.baseUrl,
        auth,
        accounts: cfg.users,
        classification: c.defaultClassification,
      });
    }
    if (c.type === 'codehost') {
      const cfg = parseConfig(CodehostPullConfigSchema, c.config);
      if (!cfg.apiBaseUrl || Object.keys(cfg.users).length === 0) return undefined;
      return new CodehostReviewSource({
        ...http,
        apiBaseUrl: cfg.apiBaseUrl,
        auth: { type: 'bearer', token: await this.#token(c) },
        logins: cfg.users,
        repositories: cfg.repositories,
        classification: c.defaultClassification,
      });
    }
    return undefined;
  }

  async #token(c: Connector): Promise<string> {
    const token = await this.#o.secrets.get(c.credentialsRef, { tenantId: c.tenantId });
    if (!token)
      throw new Error(
        `its credentials secret reference '${c.credentialsRef}' does not resolve for this tenant (not in the secret store, or another tenant's)`,
      );
    return token;
  }
}

function parseConfig<S extends z.ZodType>(schema: S, config: unknown): z.infer<S> {
  const r = schema.safeParse(config);
  if (!r.success)
    throw new Error(
      `its config is invalid: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  return r.data;
}

/** The connector's pull interval in seconds (config `syncIntervalSeconds`, default 300). */
function intervalOf(c: Connector): number {
  const v = c.config.syncIntervalSeconds;
  return typeof v === 'number' && Number.isInteger(v) && v >= 10 && v <= 86_400 ? v : 300;
}
