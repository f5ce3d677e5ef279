import { GovernanceError } from '@agentgov/core';
import { describe, expect, it } from 'vitest';
import { staticIntegrations } from '../src/integrations';
import { signBody } from '../src/signature';
import { WebhookService } from '../src/webhooks';
import { SECRET, setup, TENANT } from './helpers';
import {
  branchPush,
  example,
  examples,
  jiraIssueUpdated,
  mergedPullRequest,
  openedPullRequest,
} from './payloads';

async function rejection(p: Promise<unknown>): Promise<GovernanceError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(GovernanceError);
  return e as GovernanceError;
}

async function nothingRecorded(s: ReturnType<typeof setup>) {
  expect(await s.store.listWrites(TENANT)).toEqual([]);
  expect(
    await s.store.activities(TENANT, {
      userId: 'alice',
      from: '2000-01-01T00:00:00Z',
      to: '2100-01-01T00:00:00Z',
    }),
  ).toEqual([]);
}

describe('WebhookService (real @octokit/webhooks-examples payloads)', () => {
  it('ping → pong, every real ping example', async () => {
    const s = setup();
    for (const p of examples('ping'))
      expect(await s.send('ping', p)).toMatchObject({ status: 'pong', event: 'ping' });
    await nothingRecorded(s);
  });

  it('a merged PR records the activity and queues a comment and the transition for each ticket, after policy', async () => {
    const s = setup();
    const payload = mergedPullRequest({
      branch: 'feature/ENG-12-readme',
      title: 'Update the README (OPS-3)',
      body: 'Details.\nJira: https://tracker.example.com/browse/ENG-12',
    });
    const answer = await s.send('pull_request', payload, { delivery: 'd-merge' });
    expect(answer).toMatchObject({
      status: 'processed',
      action: 'pull_request.merged',
      tickets: ['ENG-12', 'OPS-3'],
      activities: 1,
    });
    expect(answer.writes?.map((w) => [w.tool, w.ticketId, w.state])).toEqual([
      ['tracker_update', 'ENG-12', 'pending'],
      ['tracker_transition', 'ENG-12', 'pending'],
      ['tracker_update', 'OPS-3', 'pending'],
      ['tracker_transition', 'OPS-3', 'pending'],
    ]);
    expect(s.kicks()).toBe(1);
    // The integrations decisions carried the spec's inputs.
    expect(
      s.engine.requests.map(
        (r) =>
          r.domain === 'integrations' && [
            r.input.action,
            r.input.context.targetSystem,
            r.input.context.additional.source,
            r.input.context.additional.trigger,
          ],
      ),
    ).toEqual([
      ['tracker_update', 'tracker', 'work-tracking', 'pr_merged'],
      ['tracker_transition', 'tracker', 'work-tracking', 'pr_merged'],
      ['tracker_update', 'tracker', 'work-tracking', 'pr_merged'],
      ['tracker_transition', 'tracker', 'work-tracking', 'pr_merged'],
    ]);
    const [activity] = await s.store.activities(TENANT, {
      userId: 'alice',
      from: '2019-05-15T00:00:00Z',
      to: '2019-05-16T00:00:00Z',
    });
    expect(activity).toMatchObject({
      kind: 'pr_merged',
      subject: 'Codertocat/Hello-World#2',
      tickets: ['ENG-12', 'OPS-3'],
      deliveryId: 'd-merge',
    });

    // The outbox delivers: comments arrive, tickets move, each write audited.
    expect(await s.outbox.drain()).toEqual({ delivered: 4, retrying: 0, failed: 0 });
    const eng = s.tracker.tickets.get('ENG-12');
    expect(eng?.comments.map((c) => c.body)).toEqual([expect.stringContaining('Codertocat/Hello-World#2')]);
    expect(eng?.comments[0]?.body).toContain('was merged by Codertocat');
    expect(eng?.status).toBe('Done');
    expect(s.tracker.tickets.get('OPS-3')?.status).toBe('Done');
    expect(
      s.audit.entries.map((e) => [
        e.actionType,
        e.actionDetail.tool,
        e.actionDetail.ticketId,
        e.actionDetail.outcome,
        e.outcome,
        e.userId,
      ]),
    ).toEqual([
      // The four decisions the webhook asked for, audited as the policy plugin audits its own.
      ['policy_decision', undefined, undefined, undefined, 'success', 'alice'],
      ['policy_decision', undefined, undefined, undefined, 'success', 'alice'],
      ['policy_decision', undefined, undefined, undefined, 'success', 'alice'],
      ['policy_decision', undefined, undefined, undefined, 'success', 'alice'],
      ['tool_invocation', 'tracker_update', 'ENG-12', 'success', 'success', 'alice'],
      ['tool_invocation', 'tracker_transition', 'ENG-12', 'success', 'success', 'alice'],
      ['tool_invocation', 'tracker_update', 'OPS-3', 'success', 'success', 'alice'],
      ['tool_invocation', 'tracker_transition', 'OPS-3', 'success', 'success', 'alice'],
    ]);
    expect(await s.store.listWrites(TENANT, { state: 'delivered' })).toHaveLength(4);
    expect(await s.outbox.drain()).toEqual({ delivered: 0, retrying: 0, failed: 0 });
  });

  it('decides under the merger’s policy when they are a known user, else under the tenant’s', async () => {
    const s = setup();
    const integrations = staticIntegrations({
      [TENANT]: { codehost: { webhookSecretRef: 'codehost-webhook' }, tracker: { projectKeys: ['ENG'] } },
    });
    let known: string[] = [];
    const svc = new WebhookService({
      store: s.store,
      secrets: s.secrets,
      integrations,
      engine: s.engine,
      audit: s.audit,
      directory: { users: async () => known },
    });
    // Two merges (two bodies: the same body again would be the same delivery, decided once).
    const send = (delivery: string) => {
      const payload = mergedPullRequest({ title: `Merge ${delivery}` });
      const raw = new TextEncoder().encode(JSON.stringify(payload));
      const headers = new Headers({
        'content-type': 'application/json',
        'x-github-event': 'pull_request',
        'x-github-delivery': delivery,
        'x-hub-signature-256': signBody(SECRET, raw),
      });
      return svc.receive('codehost', { tenantId: TENANT, headers, rawBody: raw, payload, requestId: 'r' });
    };
    await send('unknown-merger');
    expect(s.engine.requests.at(-1)?.userId).toBeUndefined();
    known = ['Codertocat'];
    await send('known-merger');
    expect(s.engine.requests.at(-1)?.userId).toBe('Codertocat');
  });

  it('a tracker that names no project keys (the spec’s configuration): any {PROJECT}-{NUMBER} is a ticket', async () => {
    const s = setup({ projectKeys: null });
    s.tracker.addTicket('PROJ-123');
    const answer = await s.send(
      'pull_request',
      mergedPullRequest({ branch: 'feature/PROJ-123-readme', title: 'Fix the README (PROJ-123)' }),
    );
    expect(answer.tickets).toEqual(['PROJ-123']);
    expect(answer.writes?.map((w) => [w.tool, w.ticketId])).toEqual([
      ['tracker_update', 'PROJ-123'],
      ['tracker_transition', 'PROJ-123'],
    ]);
    // Named keys still narrow it: the same event under ENG and OPS names no ticket.
    const named = setup();
    const none = await named.send(
      'pull_request',
      mergedPullRequest({ branch: 'feature/PROJ-123-readme', title: 'Fix the README (PROJ-123)' }),
    );
    expect(none.tickets).toEqual([]);
  });

  it('receive takes the checks verify made for these very bytes (once per delivery); anything else is checked again', async () => {
    const s = setup();
    let reads = 0;
    const get = s.secrets.get.bind(s.secrets);
    s.secrets.get = (...args: Parameters<typeof get>) => {
      reads++;
      return get(...args);
    };
    const payload = mergedPullRequest();
    const raw = new TextEncoder().encode(JSON.stringify(payload));
    const signed = (secret: string) =>
      new Headers({
        'content-type': 'application/json',
        'x-github-event': 'pull_request',
        'x-github-delivery': crypto.randomUUID(),
        'x-hub-signature-256': signBody(secret, raw),
      });
    const req = (headers: Headers, rawBody = raw) => ({
      tenantId: TENANT,
      headers,
      rawBody,
      payload,
      requestId: 'r',
    });
    const verified = await s.webhooks.verify('codehost', req(signed(SECRET)));
    const afterVerify = reads;
    expect(afterVerify).toBeGreaterThan(0);
    expect((await s.webhooks.receive('codehost', req(signed(SECRET)), verified)).status).toBe('processed');
    expect(reads).toBe(afterVerify); // not read again
    // A look-alike this service did not give, other bytes, another source: checked again (and refused here).
    const refused = async (p: Promise<unknown>) =>
      expect(
        await p.then(
          () => 'accepted',
          (e: { code?: string }) => e.code,
        ),
      ).toBe('invalid_webhook_secret');
    await refused(s.webhooks.receive('codehost', req(signed('wrong')), { ...verified }));
    await refused(s.webhooks.receive('codehost', req(signed('wrong'), raw.slice()), verified));
    await refused(s.webhooks.receive('tracker', req(signed('wrong')), verified));
  });

  it('without defaultMergeTransition only comments are written', async () => {
    const s = setup({ transition: undefined });
    const answer = await s.send('pull_request', mergedPullRequest());
    expect(answer.writes?.map((w) => w.tool)).toEqual(['tracker_update']);
  });

  it('a redelivery changes nothing and says so', async () => {
    const s = setup();
    await s.send('pull_request', mergedPullRequest(), { delivery: 'same' });
    const again = await s.send('pull_request', mergedPullRequest(), { delivery: 'same' });
    expect(again).toMatchObject({ status: 'duplicate', deliveryId: 'same' });
    expect(await s.store.listWrites(TENANT)).toHaveLength(2);
    // Without a delivery header, the body's hash is the delivery id.
    const a = await s.send('push', branchPush(['ENG-12 fix']), { delivery: '' });
    const b = await s.send('push', branchPush(['ENG-12 fix']), { delivery: '' });
    expect(a.deliveryId).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(b).toMatchObject({ status: 'duplicate', deliveryId: a.deliveryId });
  });

  // Found in review: the delivery id header is not signed, so a captured delivery sent again
  // under a new id was processed again (its tracker writes repeated).
  it('the same signed body under a new delivery id (a replay) is the same delivery: nothing changes', async () => {
    const s = setup();
    const first = await s.send('pull_request', mergedPullRequest(), { delivery: 'gh-1' });
    expect(first.status).toBe('processed');
    const writes = await s.store.listWrites(TENANT);
    expect(writes.length).toBeGreaterThan(0);
    const replay = await s.send('pull_request', mergedPullRequest(), { delivery: 'gh-2' });
    expect(replay).toMatchObject({ status: 'duplicate', deliveryId: 'gh-2' });
    expect(await s.store.listWrites(TENANT)).toEqual(writes);
    // Nor without an id: the body's digest is already known.
    expect(await s.send('pull_request', mergedPullRequest(), { delivery: '' })).toMatchObject({
      status: 'duplicate',
    });
    // The same body under another event is another delivery (here: an event not tracked).
    expect((await s.send('deployment', mergedPullRequest(), { delivery: '' })).status).toBe('ignored');
    // A different body under a new id is a new delivery.
    expect((await s.send('push', branchPush(['ENG-12 fix']), { delivery: 'gh-3' })).status).toBe('processed');
  });

  // Found by a black-box probe: a replay under a new id was recognised only after the policy had
  // been asked again — two more `policy_decision` entries (and `policyEvaluations`) per replay, and
  // a 403 with denied writes audited when the policy had changed, for writes that were never due.
  it('a redelivery under a new id is recognised before any decision: the engine is not asked, nothing is audited', async () => {
    const s = setup();
    expect((await s.send('pull_request', mergedPullRequest(), { delivery: 'gh-1' })).status).toBe(
      'processed',
    );
    const asked = s.engine.requests.length;
    const audited = s.audit.entries.length;
    expect(asked).toBe(2);
    s.engine.mode = 'deny-all';
    for (const delivery of ['gh-2', ''])
      expect(await s.send('pull_request', mergedPullRequest(), { delivery })).toMatchObject({
        status: 'duplicate',
      });
    expect(s.engine.requests).toHaveLength(asked);
    expect(s.audit.entries).toHaveLength(audited);
  });

  it('a delivery id longer than 255 characters is refused (400 invalid_type naming the header), never cut', async () => {
    const s = setup();
    const prefix = 'x'.repeat(255);
    for (const delivery of [`${prefix}-first`, `${prefix}-second`]) {
      const e = await rejection(s.send('pull_request', mergedPullRequest(), { delivery }));
      expect(e.code).toBe('invalid_type');
      expect(e.status).toBe(400);
      expect(e.message).toContain('x-github-delivery');
      expect(e.detail).toEqual([
        { path: 'x-github-delivery', message: `at most 255 characters (got ${delivery.length})` },
      ]);
    }
    await nothingRecorded(s);
    // 255 characters is still accepted, as sent.
    const answer = await s.send('pull_request', mergedPullRequest(), { delivery: prefix });
    expect(answer).toMatchObject({ status: 'processed', deliveryId: prefix });
  });

  it('policy denial → 403 policy_denied, an audited deny per write, and nothing recorded', async () => {
    const s = setup();
    s.engine.mode = 'deny-all';
    const e = await rejection(s.send('pull_request', mergedPullRequest(), { delivery: 'denied' }));
    expect(e.status).toBe(403);
    expect(e.code).toBe('policy_denied');
    expect(e.detail).toEqual([
      { tool: 'tracker_update', ticketId: 'ENG-12', reason: 'denied by test policy' },
      { tool: 'tracker_transition', ticketId: 'ENG-12', reason: 'denied by test policy' },
    ]);
    expect(
      s.audit.entries.map((x) => [
        x.actionType,
        x.actionDetail.tool,
        x.actionDetail.ticketId,
        x.actionDetail.outcome,
        x.policyResult,
        x.outcome,
      ]),
    ).toEqual([
      ['policy_decision', undefined, undefined, undefined, 'deny', 'denied'],
      ['policy_decision', undefined, undefined, undefined, 'deny', 'denied'],
      ['tool_invocation', 'tracker_update', 'ENG-12', 'denied', 'deny', 'denied'],
      ['tool_invocation', 'tracker_transition', 'ENG-12', 'denied', 'deny', 'denied'],
    ]);
    await nothingRecorded(s);
    expect(await s.store.hasDelivery(TENANT, 'codehost', 'denied')).toBe(false);
    // Once policy allows, the same delivery is processed.
    s.engine.mode = 'rules';
    expect((await s.send('pull_request', mergedPullRequest(), { delivery: 'denied' })).status).toBe(
      'processed',
    );
  });

  it('decision engine down → 503 POLICY_ENGINE_UNREACHABLE, nothing recorded', async () => {
    const s = setup();
    s.engine.mode = 'down';
    const e = await rejection(s.send('pull_request', mergedPullRequest()));
    expect([e.status, e.code]).toEqual([503, 'POLICY_ENGINE_UNREACHABLE']);
    await nothingRecorded(s);
    // The failed decision is audited as `POST /decisions` audits one: a deny with outcome error.
    expect(s.audit.entries.map((x) => [x.actionType, x.policyResult, x.policyReason, x.outcome])).toEqual([
      ['policy_decision', 'deny', 'POLICY_ENGINE_UNREACHABLE', 'error'],
    ]);
  });

  it('every decision a merge asks for is audited as a policy_decision (what GET /metrics policyEvaluations counts)', async () => {
    const s = setup();
    const answer = await s.send('pull_request', mergedPullRequest(), { delivery: 'counted' });
    expect(answer.writes).toHaveLength(2);
    const decisions = s.audit.entries.filter((e) => e.actionType === 'policy_decision');
    expect(decisions).toHaveLength(s.engine.requests.length);
    expect(decisions.map((e) => (e.actionDetail.input as { action: string }).action)).toEqual([
      'tracker_update',
      'tracker_transition',
    ]);
    for (const e of decisions) {
      expect(e).toMatchObject({
        tenantId: TENANT,
        policyResult: 'allow',
        outcome: 'success',
        requestId: 'req-1',
        actionDetail: { domain: 'integrations', deliveryId: 'counted' },
      });
    }
  });

  it('missing, wrong, or retired-secret signatures → 401 invalid_webhook_secret; the previous secret works during rotation', async () => {
    const s = setup();
    const payload = mergedPullRequest();
    expect((await rejection(s.send('pull_request', payload, { secret: 'wrong' }))).code).toBe(
      'invalid_webhook_secret',
    );
    const raw = new TextEncoder().encode(JSON.stringify(payload));
    const unsigned = new Headers({ 'content-type': 'application/json', 'x-github-event': 'pull_request' });
    const e = await rejection(
      s.webhooks.receive('codehost', {
        tenantId: TENANT,
        headers: unsigned,
        rawBody: raw,
        payload,
        requestId: 'r',
      }),
    );
    expect([e.status, e.code]).toEqual([401, 'invalid_webhook_secret']);
    // A body other than the signed one.
    const h = new Headers({
      'content-type': 'application/json',
      'x-github-event': 'pull_request',
      'x-hub-signature-256': signBody(SECRET, raw),
    });
    const tampered = new TextEncoder().encode(JSON.stringify({ ...payload, action: 'opened' }));
    expect(
      (
        await rejection(
          s.webhooks.receive('codehost', {
            tenantId: TENANT,
            headers: h,
            rawBody: tampered,
            payload,
            requestId: 'r',
          }),
        )
      ).status,
    ).toBe(401);
    // Unknown tenant: no secret → 401, not a hint that the tenant exists.
    expect(
      (
        await rejection(
          s.webhooks.receive('codehost', {
            tenantId: 'other',
            headers: h,
            rawBody: raw,
            payload,
            requestId: 'r',
          }),
        )
      ).status,
    ).toBe(401);
    await nothingRecorded(s);
    // Rotation: the previous secret is valid while it is configured.
    await s.secrets.set('codehost-webhook-old', 'old-secret');
    expect((await s.send('pull_request', payload, { secret: 'old-secret' })).status).toBe('processed');
  });

  it('non-JSON content type → 415; missing event header → 400; a payload missing needed fields → 400', async () => {
    const s = setup();
    expect(
      (
        await rejection(
          s.send('pull_request', mergedPullRequest(), {
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
          }),
        )
      ).status,
    ).toBe(415);
    const raw = new TextEncoder().encode('{}');
    const noEvent = new Headers({
      'content-type': 'application/json',
      'x-hub-signature-256': signBody(SECRET, raw),
    });
    expect(
      (
        await rejection(
          s.webhooks.receive('codehost', {
            tenantId: TENANT,
            headers: noEvent,
            rawBody: raw,
            payload: {},
            requestId: 'r',
          }),
        )
      ).code,
    ).toBe('missing_type');
    const broken = mergedPullRequest();
    delete broken.pull_request.head;
    const e = await rejection(s.send('pull_request', broken));
    expect([e.status, e.code]).toEqual([400, 'invalid_type']);
    await nothingRecorded(s);
  });

  it('other events and untracked actions are ignored with a reason (2xx), recording nothing', async () => {
    const s = setup();
    expect(await s.send('issues', example('issues', 'opened'))).toMatchObject({
      status: 'ignored',
      reason: expect.stringContaining("'issues'"),
    });
    expect(await s.send('pull_request', example('pull_request', 'labeled'))).toMatchObject({
      status: 'ignored',
      reason: expect.stringContaining('labeled'),
    });
    const tagPush = examples('push').find((p) => String(p.ref).startsWith('refs/tags/'));
    expect(await s.send('push', tagPush)).toMatchObject({
      status: 'ignored',
      reason: expect.stringContaining('refs/tags/simple-tag'),
    });
    expect(await s.send('pull_request_review', example('pull_request_review', 'dismissed'))).toMatchObject({
      status: 'ignored',
    });
    await nothingRecorded(s);
  });

  it('opened, closed-unmerged, reviewed and pushed are recorded as activity without tracker writes', async () => {
    const s = setup();
    expect(await s.send('pull_request', openedPullRequest('ENG-12_readme'))).toMatchObject({
      status: 'processed',
      tickets: ['ENG-12'],
      writes: [],
    });
    expect(await s.send('pull_request', example('pull_request', 'closed'))).toMatchObject({
      status: 'processed',
      action: 'pull_request.closed',
      writes: [],
    });
    expect(await s.send('pull_request_review', example('pull_request_review', 'submitted'))).toMatchObject({
      status: 'processed',
      action: 'pull_request_review.submitted',
    });
    expect(
      await s.send('push', branchPush(['ENG-12: fix typo', 'Refs OPS-3 and UTF-8 handling'])),
    ).toMatchObject({ status: 'processed', tickets: ['ENG-12', 'OPS-3'] });
    const kinds = (
      await s.store.activities(TENANT, {
        userId: 'alice',
        from: '2000-01-01T00:00:00Z',
        to: '2100-01-01T00:00:00Z',
      })
    ).map((a) => a.kind);
    expect(kinds.sort()).toEqual(['pr_closed', 'pr_opened', 'pr_reviewed', 'push']);
    expect(await s.store.listWrites(TENANT)).toEqual([]);
    expect(s.engine.requests).toEqual([]);
  });

  it('tracker issue-updated events are recorded as ticket activity; other tracker events ignored', async () => {
    const s = setup();
    const send = (payload: unknown, secret = 'tracker-secret') => {
      const raw = new TextEncoder().encode(JSON.stringify(payload));
      const headers = new Headers({
        'content-type': 'application/json',
        'x-hub-signature-256': signBody(secret, raw),
      });
      return s.webhooks.receive('tracker', {
        tenantId: TENANT,
        headers,
        rawBody: raw,
        payload,
        requestId: 'r',
      });
    };
    expect(await send(jiraIssueUpdated())).toMatchObject({
      status: 'processed',
      event: 'jira:issue_updated',
      tickets: ['ENG-12'],
    });
    const [a] = await s.store.activities(TENANT, {
      userId: 'alice',
      from: '2019-05-15T00:00:00Z',
      to: '2019-05-16T00:00:00Z',
    });
    expect(a).toMatchObject({
      kind: 'ticket_updated',
      subject: 'ENG-12',
      detail: { changes: [{ field: 'status', from: 'In Progress', to: 'In Review' }] },
    });
    expect(await send({ ...jiraIssueUpdated(), webhookEvent: 'jira:issue_created' })).toMatchObject({
      status: 'ignored',
    });
    expect(await send(jiraIssueUpdated('HR-1'))).toMatchObject({
      status: 'ignored',
      reason: expect.stringContaining('HR-1'),
    });
    expect((await rejection(send(jiraIssueUpdated(), SECRET))).status).toBe(401);
    // A webhookEvent that is not a string is the sender's fault (400), never a 500 — JSON such as
    // {"toString": 1} cannot even be turned into a string (found by the fuzz test).
    for (const webhookEvent of [{ toString: 1 }, 42, ['jira:issue_updated']]) {
      const e = await rejection(send({ ...jiraIssueUpdated(), webhookEvent }));
      expect([e.status, e.code]).toEqual([400, 'invalid_type']);
    }
  });

  // Found by a black-box probe: an event or action not tracked was parsed as a tracked one first,
  // so Jira's sprint/project/user/version events (no `issue`) and minimal code-host bodies of
  // untracked actions were 400 — logged as failures and retried by the sender. Not tracked comes
  // first (README: order of checks); a tracked one missing a field is still 400.
  it('an event or action not tracked is ignored before the fields a tracked one needs are required', async () => {
    const s = setup();
    const sendTracker = (payload: unknown) => {
      const raw = new TextEncoder().encode(JSON.stringify(payload));
      const headers = new Headers({
        'content-type': 'application/json',
        'x-hub-signature-256': signBody('tracker-secret', raw),
      });
      return s.webhooks.receive('tracker', {
        tenantId: TENANT,
        headers,
        rawBody: raw,
        payload,
        requestId: 'r',
      });
    };
    for (const payload of [
      { webhookEvent: 'sprint_started', sprint: { id: 1, name: 'Sprint 1' } },
      { webhookEvent: 'jira:issue_deleted', issue: { id: '10001' } },
      { webhookEvent: 'project_created', project: { key: 'NEW' } },
    ])
      expect(await sendTracker(payload)).toMatchObject({
        status: 'ignored',
        event: payload.webhookEvent,
        reason: expect.stringContaining('is not tracked'),
      });
    expect(await s.send('pull_request', { action: 'labeled' })).toMatchObject({
      status: 'ignored',
      reason: expect.stringContaining("'labeled'"),
    });
    expect(await s.send('pull_request_review', { action: 'dismissed' })).toMatchObject({ status: 'ignored' });
    expect(await s.send('push', { ref: 'refs/tags/v1.0.0' })).toMatchObject({ status: 'ignored' });
    expect(await s.send('push', { ref: 'refs/heads/main', deleted: true })).toMatchObject({
      status: 'ignored',
    });
    // Tracked ones still need their fields (400 naming them).
    const e = await rejection(sendTracker({ webhookEvent: 'jira:issue_updated' }));
    expect([e.status, e.code, e.detail]).toEqual([
      400,
      'invalid_type',
      [expect.objectContaining({ path: 'issue' })],
    ]);
    for (const [event, payload] of [
      ['pull_request', { action: 'closed' }],
      ['pull_request', {}],
      ['pull_request_review', { action: 'submitted' }],
      ['push', { ref: 'refs/heads/main' }],
    ] as const)
      expect((await rejection(s.send(event, payload))).code).toBe('invalid_type');
    await nothingRecorded(s);
  });
});
