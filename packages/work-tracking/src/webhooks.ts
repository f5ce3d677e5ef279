/**
 * Webhook intake: verify → identify the event → drop redeliveries → interpret → ask policy for
 * every tracker write a merge implies → record delivery, activity and outbox writes atomically →
 * answer. Nothing is recorded for a request that fails any step (bad signature 401, bad payload
 * 400, policy denial 403 — which is audited —, decision engine down 503).
 */
import { createHash } from 'node:crypto';
import {
  type AuditSink,
  type Clock,
  type DecisionEngine,
  type DecisionRequest,
  errorOf,
  type Logger,
  newId,
  type OrgDirectory,
  type SecretStore,
  silentLogger,
  systemClock,
  type TrackerTool,
  type TrackerWrite,
  type WebhookSource,
  type WorkActivity,
  type WorkTrackingStore,
} from '@agentgov/core';
import { type ParsedEvent, PayloadError, parseCodehostEvent, parseTrackerEvent } from './events';
import { type IntegrationResolver, type TenantIntegrations, webhookSecrets } from './integrations';
import { verifySignature } from './signature';
import { decisionAuditEntry } from './webhook-decisions';

/** Event headers, first present wins (Gitea and Forgejo also send `X-GitHub-Event`). */
export const EVENT_HEADERS = ['x-github-event', 'x-gitea-event', 'x-forgejo-event', 'x-gogs-event'] as const;
/** Delivery id headers; without one the delivery id is `sha256:<hex of the body>`. */
export const DELIVERY_HEADERS = [
  'x-github-delivery',
  'x-gitea-delivery',
  'x-forgejo-delivery',
  'x-gogs-delivery',
  'x-atlassian-webhook-identifier',
] as const;

/** The longest delivery id accepted (the store's column); a longer one is refused with 400. */
const MAX_DELIVERY_ID = 255;

export interface WebhookRequest {
  tenantId: string;
  headers: Headers;
  /** The exact body bytes (the signature covers these). */
  rawBody: Uint8Array;
  /** The parsed JSON body. */
  payload: unknown;
  requestId: string;
}

export interface WebhookAnswer {
  status: 'processed' | 'duplicate' | 'ignored' | 'pong';
  deliveryId: string;
  event: string;
  action?: string;
  reason?: string;
  tickets?: string[];
  activities?: number;
  writes?: { id: string; tool: TrackerTool; ticketId: string; state: TrackerWrite['state'] }[];
}

/** What `WebhookService.verify` answers: these bytes passed the checks for this source and tenant. */
export interface WebhookVerification {
  readonly source: WebhookSource;
  readonly tenantId: string;
  readonly rawBody: Uint8Array;
  readonly integrations: TenantIntegrations | undefined;
}

export interface WebhookServiceOptions {
  store: WorkTrackingStore;
  secrets: SecretStore;
  integrations: IntegrationResolver;
  engine: DecisionEngine;
  audit: AuditSink;
  clock?: Clock;
  logger?: Logger;
  /** Called after writes were recorded (the outbox's `kick`). */
  onWrites?: () => void;
  /**
   * The users the tenant knows. A merge by a known user is decided under that user's effective
   * policy; by an account mapped to no known user, under the tenant's (enterprise) policy.
   * Without it, every decision names the mapped user.
   */
  directory?: Pick<OrgDirectory, 'users'>;
}

function firstHeader(headers: Headers, names: readonly string[]): string | undefined {
  for (const n of names) {
    const v = headers.get(n)?.trim();
    if (v) return v;
  }
  return undefined;
}

/** The comment written on each linked ticket when a pull request is merged. */
export function mergeComment(m: NonNullable<Extract<ParsedEvent, { kind: 'activity' }>['merged']>): string {
  return `Pull request ${m.repository}#${m.number} "${m.title}" (branch ${m.branch}) was merged by ${m.mergedBy}.${m.url ? `\n${m.url}` : ''}`;
}

export class WebhookService {
  readonly #o: WebhookServiceOptions & { clock: Clock; logger: Logger };
  constructor(options: WebhookServiceOptions) {
    this.#o = { ...options, clock: options.clock ?? systemClock, logger: options.logger ?? silentLogger };
  }

  /**
   * The checks of a webhook's bytes before they are parsed: the sender's signature over them (401
   * `invalid_webhook_secret`), then the content type (415). What it answers, handed to `receive`
   * with these very bytes, spares `receive` the same checks (one secret read and one HMAC per
   * delivery, and no second answer if a rotation window ends in between); `receive` without it,
   * or with one this service did not give for these bytes, source and tenant, checks them itself.
   */
  async verify(
    source: WebhookSource,
    req: Omit<WebhookRequest, 'payload' | 'requestId'>,
  ): Promise<WebhookVerification> {
    const integrations = await this.#verify(source, req);
    const verification: WebhookVerification = Object.freeze({
      source,
      tenantId: req.tenantId,
      rawBody: req.rawBody,
      integrations,
    });
    this.#issued.add(verification);
    return verification;
  }

  /** The verifications this service gave (a caller cannot make one of its own). */
  readonly #issued = new WeakSet<WebhookVerification>();

  async #verify(
    source: WebhookSource,
    req: Omit<WebhookRequest, 'payload' | 'requestId'>,
  ): Promise<TenantIntegrations | undefined> {
    const integ = await this.#o.integrations.resolve(req.tenantId);
    const configured = source === 'codehost' ? integ?.codehost : integ?.tracker;
    // A config that cannot be read: the secret references it holds verify the sender, who is told
    // what is wrong (503, not a misleading 401); an unsigned caller still learns nothing (401).
    const bad = configured ? undefined : integ?.unreadable?.[source];
    const log = {
      tenantId: req.tenantId,
      source,
      ...(bad && { connectorId: bad.connectorId, issues: bad.issues }),
    };
    const secrets = await webhookSecrets(this.#o.secrets, configured ?? bad?.refs, this.#o.clock.now(), {
      tenantId: req.tenantId,
    });
    if (secrets.length === 0) {
      this.#o.logger.warn(
        `webhook refused: ${bad ? 'the connector config cannot be read' : 'no secret configured'}`,
        log,
      );
      throw errorOf('invalid_webhook_secret');
    }
    if (verifySignature(req.rawBody, req.headers, secrets).isErr()) throw errorOf('invalid_webhook_secret');
    const type = req.headers.get('content-type') ?? '';
    if (!/^application\/(?:[\w.+-]*\+)?json\b/i.test(type))
      throw errorOf('unsupported_media_type', 'Webhooks must be sent as application/json');
    if (bad) {
      this.#o.logger.error('webhook refused: the connector config cannot be read', log);
      throw errorOf(
        'service_unavailable',
        `The tenant's ${source} connector ${bad.connectorId} has a config work tracking cannot read (${bad.issues}); nothing was recorded. An admin fixes it with PATCH /connectors/${bad.connectorId}; send the delivery again afterwards`,
      );
    }
    return integ;
  }

  /**
   * Handles one webhook; throws the GovernanceError of the answer for every failure. `verified`:
   * what `verify` answered for these bytes (see there).
   */
  async receive(
    source: WebhookSource,
    req: WebhookRequest,
    verified?: WebhookVerification,
  ): Promise<WebhookAnswer> {
    const integ =
      verified &&
      this.#issued.has(verified) &&
      verified.rawBody === req.rawBody &&
      verified.source === source &&
      verified.tenantId === req.tenantId
        ? verified.integrations
        : await this.#verify(source, req);

    const claimed = (req.payload as { webhookEvent?: unknown } | null)?.webhookEvent;
    if (source === 'tracker' && claimed !== undefined && claimed !== null && typeof claimed !== 'string')
      throw errorOf('invalid_type', 'webhookEvent must be a string', [
        { path: 'webhookEvent', message: 'expected string' },
      ]);
    const event =
      source === 'codehost'
        ? firstHeader(req.headers, EVENT_HEADERS)
        : (claimed as string | null) || undefined;
    if (!event)
      throw errorOf(
        'missing_type',
        source === 'codehost'
          ? 'The event header (X-GitHub-Event) is missing'
          : 'The body has no webhookEvent',
        [{ path: source === 'codehost' ? 'X-GitHub-Event' : 'webhookEvent', message: 'required' }],
      );
    // A delivery id longer than the store keeps is refused, never cut: two long ids sharing their
    // first 255 characters would collide and the second delivery would be dropped as a duplicate.
    const deliveryHeader = DELIVERY_HEADERS.find((n) => req.headers.get(n)?.trim());
    const sentId = deliveryHeader && (req.headers.get(deliveryHeader) as string).trim();
    if (deliveryHeader && sentId && sentId.length > MAX_DELIVERY_ID)
      throw errorOf(
        'invalid_type',
        `The ${deliveryHeader} header is longer than ${MAX_DELIVERY_ID} characters`,
        [{ path: deliveryHeader, message: `at most ${MAX_DELIVERY_ID} characters (got ${sentId.length})` }],
      );
    // Without the sender's id, the body's digest names the delivery (hashed only then).
    const deliveryId = sentId || `sha256:${createHash('sha256').update(req.rawBody).digest('hex')}`;
    // The digest of the event and the signed body is the delivery's other id: the sender's id is
    // not signed, so the same event with the same body under a new id (a redelivery, or a captured
    // delivery replayed) is the same delivery. Both are looked up before anything is decided, so a
    // duplicate asks the engine nothing and audits nothing; the same body under another event is
    // another delivery. (`recordDelivery` still answers `duplicate` when two copies race.)
    const replayId = `event-body:sha256:${createHash('sha256').update(`${event}\n`).update(req.rawBody).digest('hex')}`;
    const store = this.#o.store;
    const seen = async (id: string) => store.hasDelivery(req.tenantId, source, id);
    const duplicate: WebhookAnswer = {
      status: 'duplicate',
      deliveryId,
      event,
      reason: 'this delivery was already processed; nothing changed',
    };
    if ((await seen(deliveryId)) || (await seen(replayId))) return duplicate;

    const parsed = this.#parse(source, event, req.payload, integ as TenantIntegrations);
    if (parsed.kind === 'ping') return { status: 'pong', deliveryId, event };
    if (parsed.kind === 'ignored') return { status: 'ignored', deliveryId, event, reason: parsed.reason };

    const now = this.#o.clock.now().toISOString();
    const writes = await this.#plannedWrites(parsed, integ as TenantIntegrations, req, deliveryId, now);
    const activities: WorkActivity[] = parsed.activities.map((a) => ({
      ...a,
      id: newId(),
      tenantId: req.tenantId,
      source,
      deliveryId,
    }));
    const recorded = await this.#o.store.recordDelivery({
      delivery: { tenantId: req.tenantId, source, deliveryId, event, receivedAt: now },
      activities,
      writes,
      aliases: [replayId],
    });
    if (recorded === 'duplicate') return duplicate;
    if (writes.length > 0) this.#o.onWrites?.();
    return {
      status: 'processed',
      deliveryId,
      event,
      action: parsed.action,
      tickets: [...new Set(activities.flatMap((a) => a.tickets))],
      activities: activities.length,
      writes: writes.map((w) => ({ id: w.id, tool: w.tool, ticketId: w.ticketId, state: w.state })),
    };
  }

  #parse(source: WebhookSource, event: string, payload: unknown, integ: TenantIntegrations): ParsedEvent {
    try {
      if (source === 'tracker') {
        if (!integ.tracker) return { kind: 'ignored', reason: 'no tracker integration is configured' };
        return parseTrackerEvent(payload, integ.tracker, this.#o.clock.now());
      }
      return parseCodehostEvent(event, payload, {
        // No tracker: no tickets; a tracker naming no project keys: any key.
        projectKeys: integ.tracker ? integ.tracker.projectKeys : [],
        trackerName: integ.tracker?.name ?? 'Jira',
        users: integ.codehost?.users ?? {},
        now: this.#o.clock.now(),
      });
    } catch (error) {
      if (error instanceof PayloadError)
        throw errorOf(
          'invalid_type',
          error.message,
          error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
        );
      throw error;
    }
  }

  /** The writes a merge implies, each allowed by an integrations decision; any denial → 403 (audited). */
  async #plannedWrites(
    parsed: Extract<ParsedEvent, { kind: 'activity' }>,
    integ: TenantIntegrations,
    req: WebhookRequest,
    deliveryId: string,
    now: string,
  ): Promise<TrackerWrite[]> {
    const merged = parsed.merged;
    if (!merged || !integ.tracker || merged.tickets.length === 0) return [];
    const userId = parsed.activities[0]?.userId ?? merged.mergedBy;
    const transition = integ.tracker.defaultMergeTransition;
    const planned: { tool: TrackerTool; ticketId: string }[] = merged.tickets.flatMap((ticketId) => [
      { tool: 'tracker_update' as const, ticketId },
      ...(transition ? [{ tool: 'tracker_transition' as const, ticketId }] : []),
    ]);
    const known = this.#o.directory ? (await this.#o.directory.users(req.tenantId)).includes(userId) : true;
    const decided = [];
    for (const p of planned) {
      const request: DecisionRequest = {
        domain: 'integrations',
        tenantId: req.tenantId,
        // A merger the directory does not know: the enterprise-level answer, asked for explicitly.
        ...(known ? { userId } : { scope: 'enterprise' as const }),
        input: {
          action: p.tool,
          context: {
            targetSystem: 'tracker',
            additional: { source: 'work-tracking', trigger: 'pr_merged', ticketId: p.ticketId },
          },
        },
      };
      const r = await this.#o.engine.decide(request, { signal: AbortSignal.timeout(10_000) });
      // Every decision is audited as a `policy_decision`, like `POST /decisions` (a failed one
      // too): `GET /metrics` `policyEvaluations` counts these entries.
      const a = await this.#o.audit.append(
        decisionAuditEntry(request, r.isOk() ? r.value : undefined, {
          engine: this.#o.engine.name,
          userId,
          requestId: req.requestId,
          deliveryId,
        }),
      );
      if (r.isErr()) throw r.error;
      if (a.isErr()) throw a.error;
      decided.push({ ...p, decision: r.value });
    }
    const denied = decided.filter((d) => !d.decision.allow);
    if (denied.length > 0) {
      for (const d of denied) {
        const a = await this.#o.audit.append({
          tenantId: req.tenantId,
          userId,
          actionType: 'tool_invocation',
          actionDetail: {
            tool: d.tool,
            ticketId: d.ticketId,
            outcome: 'denied',
            deliveryId,
            trigger: 'pr_merged',
          },
          dataClassification: 'internal',
          policyApplied: `integrations:${this.#o.engine.name}`,
          policyResult: 'deny',
          policyReason: d.decision.reason,
          outcome: 'denied',
          requestId: req.requestId,
        });
        if (a.isErr()) throw a.error;
      }
      throw errorOf(
        'policy_denied',
        'Policy denies the tracker writes of this merge; nothing was recorded',
        denied.map((d) => ({ tool: d.tool, ticketId: d.ticketId, reason: d.decision.reason })),
      );
    }
    const comment = mergeComment(merged);
    // createdAt staggered by a millisecond each: the outbox (due first, then oldest) delivers a
    // ticket's comment before its transition, and the tickets in the order they were referenced.
    const at = (i: number) => new Date(Date.parse(now) + i).toISOString();
    return decided.map((d, i) => ({
      id: newId(),
      tenantId: req.tenantId,
      tool: d.tool,
      ticketId: d.ticketId,
      comment: d.tool === 'tracker_update' ? comment : null,
      transitionName: d.tool === 'tracker_transition' ? (transition ?? null) : null,
      state: 'pending' as const,
      attempts: 0,
      nextAttemptAt: now,
      lastError: null,
      createdAt: at(i),
      deliveredAt: null,
      userId,
      requestId: req.requestId,
      deliveryId,
      policyApplied: `integrations:${this.#o.engine.name}`,
      policyReason: d.decision.reason,
    }));
  }
}
