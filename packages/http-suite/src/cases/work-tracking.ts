/** biome-ignore-all lint/suspicious/noExplicitAny: JSON bodies of a black-box HTTP suite are read without schemas */
/**
 * Work-tracking routes: signed code-host webhooks with real `@octokit/webhooks-examples` payloads
 * (401 unsigned or wrongly signed, 400 not JSON, ping, ignored events, 403 + audited deny without
 * an integrations policy, then processed, delivered by the outbox, and idempotent on redelivery),
 * the standup tool (self, scope, unknown user, bad date) and the routes in the OpenAPI document.
 */
import { createHmac } from 'node:crypto';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import type { Harness } from '../harness';
import { WEBHOOK_SECRET } from '../service';

const require = createRequire(import.meta.url);
const examples = require('@octokit/webhooks-examples') as { name: string; examples: any[] }[];
const example = (event: string, action?: string) =>
  structuredClone(
    examples.find((d) => d.name === event)?.examples.find((e) => action === undefined || e.action === action),
  );

/** The real `pull_request.closed` example, merged, on a branch naming ENG-12 (the package has no merged PR). */
function merged(): any {
  const p = example('pull_request', 'closed');
  Object.assign(p.pull_request, { merged: true, merged_at: p.pull_request.closed_at, merged_by: p.sender });
  p.pull_request.head.ref = 'feature/ENG-12-readme';
  return p;
}
const sign = (secret: string, body: string) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

export function workTrackingCases(h: Harness): void {
  describe('work tracking', () => {
    const hook = (event: string, body: string, headers: Record<string, string> = {}) =>
      h.call('/webhooks/codehost?tenant=acme', {
        method: 'POST',
        raw: body,
        headers: {
          'content-type': 'application/json',
          'x-github-event': event,
          'x-github-delivery': crypto.randomUUID(),
          'x-hub-signature-256': sign(WEBHOOK_SECRET, body),
          ...headers,
        },
      });
    const delivery = crypto.randomUUID();
    const mergedBody = JSON.stringify(merged());

    it('unsigned or wrongly signed → 401; not JSON → 400; ping → 200; other events ignored', async () => {
      h.expectError(
        await h.call('/webhooks/codehost?tenant=acme', {
          method: 'POST',
          raw: mergedBody,
          headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request' },
        }),
        401,
        'invalid_webhook_secret',
      );
      h.expectError(
        await hook('pull_request', mergedBody, { 'x-hub-signature-256': sign('wrong', mergedBody) }),
        401,
        'invalid_webhook_secret',
      );
      h.expectError(await hook('pull_request', 'not json'), 400, 'invalid_type');
      // A delivery id over 255 characters is refused, naming the header (never cut: ids would collide).
      const long = await hook('pull_request', mergedBody, { 'x-github-delivery': 'd'.repeat(256) });
      h.expectError(long, 400, 'invalid_type');
      expect(long.body.detail?.[0]?.path).toBe('x-github-delivery');
      const ping = await hook('ping', JSON.stringify(example('ping')));
      expect([ping.status, ping.body.status]).toEqual([200, 'pong']);
      const other = await hook('issues', JSON.stringify(example('issues', 'opened')));
      expect([other.status, other.body.status]).toEqual([200, 'ignored']);
      expect(other.body.reason).toContain("'issues'");
    });

    it('a merge without an integrations policy → 403 policy_denied, audited as a denied tool_invocation', async () => {
      const before = await h.call('/metrics', { as: 'enterpriseAdmin' });
      h.expectError(
        await hook('pull_request', mergedBody, { 'x-github-delivery': delivery }),
        403,
        'policy_denied',
      );
      const audit = await h.call('/audit?action_type=tool_invocation&policyResult=deny', {
        as: 'enterpriseAdmin',
      });
      expect(
        audit.body.entries.map((e: any) => [e.actionDetail.tool, e.actionDetail.ticketId, e.outcome]),
      ).toEqual([['tracker_update', 'ENG-12', 'denied']]);
      // The decision the webhook asked for counts in /metrics like any other.
      const after = await h.call('/metrics', { as: 'enterpriseAdmin' });
      expect(after.body.policyEvaluations).toBe(before.body.policyEvaluations + 1);
    });

    it('with the policy: processed, written to the tracker by the outbox, and idempotent', async () => {
      const policy = await h.call('/policies', {
        as: 'enterpriseAdmin',
        method: 'POST',
        body: {
          scope: 'enterprise',
          scopeId: 'acme',
          domain: 'integrations',
          name: 'tracker writes',
          version: '1.0.0',
          content:
            'actions:\n  tracker_update: { allowed: true, target_systems: [tracker], sources: [work-tracking] }\n',
          changeReason: 'work tracking',
        },
      });
      expect(policy.status).toBe(201);
      const r = await hook('pull_request', mergedBody, { 'x-github-delivery': delivery });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        status: 'processed',
        tickets: ['ENG-12'],
        writes: [{ tool: 'tracker_update', ticketId: 'ENG-12', state: 'pending' }],
      });
      let writes: any;
      for (let i = 0; i < 100; i++) {
        writes = await h.call(`/work-tracking/writes?deliveryId=${delivery}`, { as: 'enterpriseAdmin' });
        if (writes.body.writes[0]?.state === 'delivered') break;
        await new Promise((res) => setTimeout(res, 20));
      }
      expect(writes.body.writes.map((w: any) => w.state)).toEqual(['delivered']);
      const again = await hook('pull_request', mergedBody, { 'x-github-delivery': delivery });
      expect([again.status, again.body.status]).toEqual([200, 'duplicate']);
      h.expectError(await h.call('/work-tracking/writes', { as: 'user' }), 403, 'forbidden');
    });

    it('standup: self; admins in scope; others 403; unknown user or bad date 400', async () => {
      const day = merged().pull_request.merged_at.slice(0, 10);
      const mine = await h.call('/tools/standup_summary', {
        as: 'user',
        method: 'POST',
        body: { userId: 'u-alice', date: day },
      });
      expect(mine.status).toBe(200);
      expect(mine.body).toMatchObject({
        userId: 'u-alice',
        date: day,
        timeZone: 'UTC',
        totals: { pullRequestsMerged: 1 },
      });
      expect(mine.body.summaryText).toContain('Codertocat/Hello-World#2');
      h.expectError(
        await h.call('/tools/standup_summary', {
          as: 'userSales',
          method: 'POST',
          body: { userId: 'u-alice', date: day },
        }),
        403,
        'forbidden',
      );
      expect(
        (
          await h.call('/tools/standup_summary', {
            as: 'teamLead',
            method: 'POST',
            body: { userId: 'u-alice', date: day },
          })
        ).status,
      ).toBe(200);
      h.expectError(
        await h.call('/tools/standup_summary', {
          as: 'orgAdminSales',
          method: 'POST',
          body: { userId: 'u-alice', date: day },
        }),
        403,
        'forbidden',
      );
      h.expectError(
        await h.call('/tools/standup_summary', {
          as: 'enterpriseAdmin',
          method: 'POST',
          body: { userId: 'nobody', date: day },
        }),
        400,
        'invalid_type',
      );
      h.expectError(
        await h.call('/tools/standup_summary', {
          as: 'user',
          method: 'POST',
          body: { userId: 'u-alice', date: '2019-13-01' },
        }),
        400,
        'invalid_type',
      );
      h.expectError(
        await h.call('/tools/standup_summary', { as: 'user', method: 'POST', body: { date: day } }),
        400,
        'missing_type',
      );
      h.expectError(
        await h.call('/tools/standup_summary', { method: 'POST', body: { userId: 'u-alice', date: day } }),
        401,
      );
    });

    it('is in the OpenAPI document', async () => {
      const doc = await h.call('/openapi.json');
      for (const p of [
        '/api/v1/webhooks/codehost',
        '/api/v1/webhooks/tracker',
        '/api/v1/tools/standup_summary',
      ])
        expect(Object.keys(doc.body.paths)).toContain(p);
    });
  });
}
