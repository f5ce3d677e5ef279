/**
 * `createWorkTracking(...)`: the services of the package composed over their ports — webhook
 * intake, the tracker outbox, standups, tasks, briefings and classification — for in-process use
 * and for the `./gateway` plugin, which serves exactly these.
 */
import type {
  AuditSink,
  BriefingStore,
  ClassificationStore,
  Clock,
  ConnectorStore,
  DecisionEngine,
  Logger,
  OrgDirectory,
  SecretRefHolders,
  SecretStore,
  TaskStore,
  TrackerClient,
  WorkTrackingStore,
} from '@agentgov/core';
import { TrackerRequestError } from '@agentgov/core';
import { type BriefingInputs, BriefingService, connectorStatusOf } from './briefings';
import { type ClassificationModel, ClassificationService } from './classification';
import { DEFAULT_EGRESS, type EgressPolicy, egressFetch } from './egress';
import { HttpTrackerClient } from './http-tracker';
import type { IntegrationResolver, TenantIntegrations } from './integrations';
import { TrackerOutbox, type TrackerOutboxOptions } from './outbox';
import { StandupService } from './standup';
import { TaskService } from './tasks';
import { WebhookService } from './webhooks';

export interface WorkTrackingOptions {
  store: WorkTrackingStore;
  tasks: TaskStore;
  briefings: BriefingStore;
  classifications: ClassificationStore;
  /** Read with the tenant's id as context (`SecretStore.get`). */
  secrets: SecretStore;
  /**
   * Who holds each secret reference (the ConnectorStore, when the integrations come from the
   * tenants' connectors): with it, a tenant's webhook secrets and tracker credentials resolve only
   * from references that tenant holds (`tenantSecrets`) — the routes plugin wraps `secrets` so.
   */
  secretRefs?: SecretRefHolders;
  integrations: IntegrationResolver;
  /**
   * Where the tracker client and the scheduled pulls may connect — a connector's URL is its
   * tenant admin's to choose (`egressFetch`; default `{ mode: 'private' }`: everything but
   * link-local and cloud metadata addresses). Not used by a `trackerClient` or `sync.fetch` given.
   */
  egress?: EgressPolicy;
  engine: DecisionEngine;
  audit: AuditSink;
  /**
   * The tracker client of a tenant. Default: HttpTrackerClient on the tracker integration's
   * `baseUrl`, with the token found under its `credentialsRef` (bearer, or Basic with `username`;
   * no credentials only when the integration names no `credentialsRef` — a reference that does not
   * resolve throws, so the outbox records why and retries, and nothing is sent).
   */
  trackerClient?: (integrations: TenantIntegrations) => Promise<TrackerClient | undefined>;
  /** IANA time zone of a user, for standups (default UTC). */
  timeZoneOf?: (tenantId: string, userId: string) => Promise<string | undefined>;
  briefingInputs?: BriefingInputs;
  /**
   * The tenant's connectors: the default briefing connector status map (the user's and the
   * tenant-wide connectors: active → ok, never synced → partial, error → error).
   */
  connectors?: Pick<ConnectorStore, 'list'>;
  /** Known users: whose effective policy decides a merge's writes (see WebhookServiceOptions). */
  directory?: OrgDirectory;
  classificationModel?: ClassificationModel;
  outbox?: Pick<TrackerOutboxOptions, 'leaseMs' | 'backoffMs' | 'maxBackoffMs' | 'batchSize'>;
  clock?: Clock;
  logger?: Logger;
}

export interface WorkTracking {
  webhooks: WebhookService;
  outbox: TrackerOutbox;
  standup: StandupService;
  tasks: TaskService;
  briefings: BriefingService;
  classification: ClassificationService;
  store: WorkTrackingStore;
}

export function createWorkTracking(o: WorkTrackingOptions): WorkTracking {
  const clock = o.clock ? { clock: o.clock } : {};
  const logger = o.logger ? { logger: o.logger } : {};
  const connectorFetch = egressFetch(o.egress ?? DEFAULT_EGRESS);
  const trackerClient =
    o.trackerClient ??
    (async (t: TenantIntegrations) => {
      const unreadable = t.unreadable?.tracker;
      if (unreadable)
        throw new TrackerRequestError(
          `the tracker connector ${unreadable.connectorId} has a config work tracking cannot read (${unreadable.issues}); nothing was sent`,
          { retryable: true },
        );
      if (!t.tracker?.baseUrl) return undefined;
      const ref = t.trackerCredentialsRef;
      const token = ref ? await o.secrets.get(ref, { tenantId: t.tenantId }) : undefined;
      // A reference that does not resolve is a configuration error, never "no credentials": the
      // write is not sent (retried like other retryable failures, its reason recorded).
      if (ref && !token)
        throw new TrackerRequestError(
          `the tracker connector's credentials secret reference '${ref}' does not resolve for this tenant (not in the secret store, or another tenant's); nothing was sent`,
          { retryable: true },
        );
      const username = t.tracker.username;
      const auth = !token
        ? undefined
        : username
          ? { type: 'basic' as const, username, token }
          : { type: 'bearer' as const, token };
      return new HttpTrackerClient({
        baseUrl: t.tracker.baseUrl,
        fetch: connectorFetch,
        ...(auth ? { auth } : {}),
      });
    });
  const outbox = new TrackerOutbox({
    ...o.outbox,
    ...clock,
    ...logger,
    store: o.store,
    audit: o.audit,
    clientFor: async (tenantId) => {
      const t = await o.integrations.resolve(tenantId);
      return t ? trackerClient(t) : undefined;
    },
  });
  return {
    store: o.store,
    outbox,
    webhooks: new WebhookService({
      ...clock,
      ...logger,
      store: o.store,
      secrets: o.secrets,
      integrations: o.integrations,
      engine: o.engine,
      audit: o.audit,
      onWrites: () => outbox.kick(),
      ...(o.directory ? { directory: o.directory } : {}),
    }),
    standup: new StandupService({ store: o.store, ...(o.timeZoneOf ? { timeZoneOf: o.timeZoneOf } : {}) }),
    tasks: new TaskService({ ...clock, store: o.tasks, counters: o.store }),
    briefings: new BriefingService({
      ...clock,
      ...(o.connectors ? { connectorStatus: connectorStatusFrom(o.connectors) } : {}),
      ...o.briefingInputs,
      store: o.briefings,
      tasks: o.tasks,
    }),
    classification: new ClassificationService({
      ...clock,
      store: o.classifications,
      audit: o.audit,
      counters: o.store,
      ...(o.classificationModel ? { model: o.classificationModel } : {}),
    }),
  };
}

/** The briefing status of each connector type the user relies on (their own or tenant-wide); the worst wins. */
function connectorStatusFrom(
  connectors: Pick<ConnectorStore, 'list'>,
): NonNullable<BriefingInputs['connectorStatus']> {
  const rank = { ok: 0, partial: 1, error: 2, unreachable: 3 } as const;
  return async (tenantId, userId) => {
    const out: Awaited<ReturnType<NonNullable<BriefingInputs['connectorStatus']>>> = {};
    for (const c of await connectors.list(tenantId)) {
      if (c.userId !== null && c.userId !== userId) continue;
      const status = connectorStatusOf(c);
      const prev = out[c.type];
      if (status && (!prev || rank[status] > rank[prev])) out[c.type] = status;
    }
    return out;
  };
}
