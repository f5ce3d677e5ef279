import {
  type Decision,
  type DecisionEngine,
  type DecisionRequest,
  err,
  InMemoryAuditSink,
  InMemorySecretStore,
  InMemoryTracker,
  InMemoryWorkTrackingStore,
  ManualClock,
  ok,
  PolicyEngineUnreachableError,
  type Result,
} from '@agentgov/core';
import { staticIntegrations } from '../src/integrations';
import { TrackerOutbox } from '../src/outbox';
import { signBody } from '../src/signature';
import { WebhookService } from '../src/webhooks';

/**
 * A decision engine implementing the spec's rule 7 literally (tracker_update needs source
 * work-tracking, tracker_transition needs trigger pr_merged; everything else denied), with
 * switches to deny everything or be unreachable. The HTTP tests use the real built-in engine.
 */
export class Rule7Engine implements DecisionEngine {
  readonly name = 'rule7';
  mode: 'rules' | 'deny-all' | 'down' = 'rules';
  readonly requests: DecisionRequest[] = [];
  async decide(request: DecisionRequest): Promise<Result<Decision, PolicyEngineUnreachableError>> {
    this.requests.push(request);
    if (this.mode === 'down') return err(new PolicyEngineUnreachableError());
    const allow = (reason: string): Decision => ({ allow: true, deny: false, reason, constraints: {} });
    const deny = (reason: string): Decision => ({ allow: false, deny: true, reason, constraints: {} });
    if (this.mode === 'deny-all' || request.domain !== 'integrations')
      return ok(deny('denied by test policy'));
    const { action, context } = request.input;
    if (
      action === 'tracker_update' &&
      context.targetSystem === 'tracker' &&
      context.additional.source === 'work-tracking'
    )
      return ok(allow('tracker_update from work-tracking'));
    if (
      action === 'tracker_transition' &&
      context.targetSystem === 'tracker' &&
      context.additional.trigger === 'pr_merged'
    )
      return ok(allow('tracker_transition on pr_merged'));
    return ok(deny(`no rule allows ${action}`));
  }
  async health(): Promise<boolean> {
    return this.mode !== 'down';
  }
}

export const TENANT = 'acme';
export const SECRET = 'codehost-secret-1';

/** `projectKeys`: the tracker's (default ENG and OPS; `null`: none named, any key counts). */
export function setup(opts: { transition?: string | undefined; projectKeys?: string[] | null } = {}) {
  const clock = new ManualClock('2019-05-15T16:00:00Z');
  const store = new InMemoryWorkTrackingStore();
  const audit = new InMemoryAuditSink(clock);
  const secrets = new InMemorySecretStore({
    'codehost-webhook': SECRET,
    'tracker-webhook': 'tracker-secret',
  });
  const engine = new Rule7Engine();
  const tracker = new InMemoryTracker();
  tracker.addTicket('ENG-12');
  tracker.addTicket('OPS-3');
  const integrations = staticIntegrations({
    [TENANT]: {
      codehost: {
        webhookSecretRef: 'codehost-webhook',
        previousWebhookSecretRef: 'codehost-webhook-old',
        users: { Codertocat: 'alice' },
      },
      tracker: {
        name: 'Jira',
        ...(opts.projectKeys === null ? {} : { projectKeys: opts.projectKeys ?? ['ENG', 'OPS'] }),
        webhookSecretRef: 'tracker-webhook',
        users: { 'acc-alice': 'alice' },
        ...('transition' in opts
          ? opts.transition
            ? { defaultMergeTransition: opts.transition }
            : {}
          : { defaultMergeTransition: 'Done' }),
      },
    },
  });
  let kicks = 0;
  const webhooks = new WebhookService({
    store,
    secrets,
    integrations,
    engine,
    audit,
    clock,
    onWrites: () => kicks++,
  });
  let trackerUp = true;
  const outbox = new TrackerOutbox({
    store,
    audit,
    clock,
    clientFor: async () => (trackerUp ? tracker : undefined),
    backoffMs: 1_000,
  });
  const send = (
    event: string,
    payload: unknown,
    o: { secret?: string; delivery?: string; headers?: Record<string, string> } = {},
  ) => {
    const raw = new TextEncoder().encode(JSON.stringify(payload));
    const headers = new Headers({
      'content-type': 'application/json',
      'x-github-event': event,
      'x-hub-signature-256': signBody(o.secret ?? SECRET, raw),
      ...(o.delivery === undefined
        ? { 'x-github-delivery': crypto.randomUUID() }
        : o.delivery
          ? { 'x-github-delivery': o.delivery }
          : {}),
      ...o.headers,
    });
    return webhooks.receive('codehost', {
      tenantId: TENANT,
      headers,
      rawBody: raw,
      payload,
      requestId: 'req-1',
    });
  };
  return {
    clock,
    store,
    audit,
    secrets,
    engine,
    tracker,
    webhooks,
    outbox,
    send,
    kicks: () => kicks,
    setTrackerUp: (up: boolean) => {
      trackerUp = up;
    },
  };
}

/**
 * Per-attempt timeouts under the test's control (HttpTrackerClient's `timeoutSignal`): an attempt
 * times out only when `expire()` is called — wire it to the loopback tracker's `onHang` — never
 * because a busy machine was slower than a real timeout.
 */
export function manualTimeouts() {
  const pending = new Set<AbortController>();
  return {
    signal: (_ms: number): AbortSignal => {
      const c = new AbortController();
      pending.add(c);
      return c.signal;
    },
    expire: (): void => {
      for (const c of pending) c.abort(new DOMException('The operation timed out.', 'TimeoutError'));
      pending.clear();
    },
  };
}
