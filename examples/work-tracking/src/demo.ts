/**
 * The work-tracking replay: a loopback Jira-compatible tracker, the reference server (started
 * in-process unless AGENTGOV_URL points at a running one), a tracker-writes policy, the tenant's
 * codehost and tracker connectors, then a real `@octokit/webhooks-examples` pull-request payload
 * — merged, on a branch naming ENG-12 — signed with the configured secret and replayed. It shows
 * the comment and transition arriving at the tracker, the audit entries, the standup, and that bad
 * input (unsigned, wrongly signed, oversized, non-JSON, unknown event) gets a clear 4xx or an
 * "ignored" answer and changes nothing.
 */
import { createHmac } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startLoopbackTracker } from '@agentgov/work-tracking/testing';
import { loadConfig } from '../../server/src/config';
import { startServer } from '../../server/src/server';

const require = createRequire(import.meta.url);

// biome-ignore lint/suspicious/noExplicitAny: webhook payloads and API answers are arbitrary JSON
type Json = Record<string, any>;

/** The real `pull_request.closed` example of @octokit/webhooks-examples, turned into a merge. */
function mergedPayload(): Json {
  const defs = require('@octokit/webhooks-examples') as { name: string; examples: Json[] }[];
  const closed = defs.find((d) => d.name === 'pull_request')?.examples.find((e) => e.action === 'closed');
  if (!closed) throw new Error('no pull_request.closed example');
  const p = structuredClone(closed);
  // The package has no merged PR and no ticket references: flip `merged`, name a ticket.
  p.pull_request.merged = true;
  p.pull_request.merged_at = p.pull_request.closed_at;
  p.pull_request.merged_by = p.sender;
  p.pull_request.head.ref = 'feature/ENG-12-readme';
  p.pull_request.body = `${p.pull_request.body}\n\nJira: https://tracker.example.com/browse/ENG-12`;
  return p;
}

export interface DemoResult {
  comments: string[];
  ticketStatus: string | undefined;
  webhook: { status: number; body: Json };
  audit: { actionType: string; tool: unknown; ticketId: unknown; outcome: unknown }[];
  badInput: { case: string; status: number; error?: string; answer?: string }[];
  writesAfterBadInput: number;
  standup: Json;
}

const sign = (secret: string, body: string) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

export async function runDemo(log: (line: string) => void = console.log): Promise<DemoResult> {
  const env = process.env;
  const secret = env.AGENTGOV_WEBHOOK_SECRET ?? 'demo-webhook-secret';
  const tracker = await startLoopbackTracker({ token: 'demo-tracker-token' });
  tracker.tracker.addTicket('ENG-12', { status: 'In Review' });
  log(`Loopback tracker (Jira-compatible REST API): ${tracker.url}, ticket ENG-12 "In Review"`);
  let dataDir: string | undefined;
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    let url = env.AGENTGOV_URL;
    let token = env.AGENTGOV_TOKEN;
    if (!url) {
      dataDir = env.DATABASE_URL ? undefined : await mkdtemp(path.join(tmpdir(), 'agentgov-work-tracking-'));
      const serverEnv = {
        PORT: '0',
        ...(dataDir ? { AGENTGOV_DATA_DIR: dataDir } : { DATABASE_URL: env.DATABASE_URL }),
        AGENTGOV_SECRET_CODEHOST_WEBHOOK: secret,
        AGENTGOV_SECRET_TRACKER_TOKEN: 'demo-tracker-token',
      };
      server = await startServer(loadConfig(serverEnv), { env: serverEnv, log: () => {} });
      url = server.url;
      token = await server.devIssuer?.mintIdToken('alice');
      log(`Reference server (in-process, ${dataDir ? 'embedded PGlite' : 'DATABASE_URL'}): ${url}`);
    }
    if (!token)
      throw new Error('AGENTGOV_TOKEN is required with AGENTGOV_URL (an enterprise_admin ID token)');
    const api = `${url}/api/v1`;
    const call = async (method: string, p: string, body?: unknown) => {
      const r = await fetch(`${api}${p}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const json = await r.json();
      if (!r.ok) throw new Error(`${method} ${p} → ${r.status} ${JSON.stringify(json)}`);
      return json;
    };

    // 1. Policy (spec rule 7) and the tenant's integrations, through the admin API.
    await call('POST', '/policies', {
      scope: 'enterprise',
      scopeId: 'acme',
      domain: 'integrations',
      name: 'tracker writes',
      version: '1.0.0',
      changeReason: 'let work tracking update tickets on merge',
      content: [
        'actions:',
        '  tracker_update: { allowed: true, target_systems: [tracker], sources: [work-tracking] }',
        '  tracker_transition: { allowed: true, target_systems: [tracker], triggers: [pr_merged] }',
      ].join('\n'),
    });
    await call('POST', '/connectors', {
      type: 'codehost',
      credentials_secret_ref: 'codehost-token',
      config: { webhookSecretRef: 'codehost-webhook', users: { Codertocat: 'dave' } },
    });
    await call('POST', '/connectors', {
      type: 'tracker',
      credentials_secret_ref: 'tracker-token',
      config: { name: 'Jira', baseUrl: tracker.url, projectKeys: ['ENG'], defaultMergeTransition: 'Done' },
    });
    log('Policy and connectors configured (webhook secret: secret store ref "codehost-webhook").');

    // 2. The real payload, signed, replayed.
    const body = JSON.stringify(mergedPayload());
    const hook = (b: string, headers: Record<string, string>) =>
      fetch(`${api}/webhooks/codehost?tenant=acme`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: b,
      });
    const delivery = crypto.randomUUID();
    const res = await hook(body, {
      'x-github-event': 'pull_request',
      'x-github-delivery': delivery,
      'x-hub-signature-256': sign(secret, body),
    });
    const webhook = { status: res.status, body: await res.json() };
    log(`POST /webhooks/codehost (pull_request, merged) → ${webhook.status} ${JSON.stringify(webhook.body)}`);

    // 3. The outbox delivers right after the answer; wait for the tracker to show it.
    const ticket = tracker.tracker.tickets.get('ENG-12');
    for (let i = 0; i < 200 && ticket?.status !== 'Done'; i++) await new Promise((r) => setTimeout(r, 50));
    log(
      `Tracker: ENG-12 is "${ticket?.status}", comments:\n${ticket?.comments.map((c) => `  > ${c.body.replace(/\n/g, '\n  > ')}`).join('\n')}`,
    );
    let audit: DemoResult['audit'] = [];
    for (let i = 0; i < 100 && audit.length < 2; i++) {
      const page = await call('GET', '/audit?action_type=tool_invocation');
      audit = page.entries
        .filter((e: Json) => String(e.actionDetail.tool).startsWith('tracker_'))
        .map((e: Json) => ({
          actionType: e.actionType,
          tool: e.actionDetail.tool,
          ticketId: e.actionDetail.ticketId,
          outcome: e.actionDetail.outcome,
        }));
      if (audit.length < 2) await new Promise((r) => setTimeout(r, 50));
    }
    log(
      `Audit (tool_invocation of the tracker tools):\n${audit.map((a) => `  ${a.tool} ${a.ticketId} → ${a.outcome}`).join('\n')}`,
    );

    // 4. Bad input changes nothing.
    const before = (await call('GET', '/work-tracking/writes')).total;
    const cases: [string, string, Record<string, string>][] = [
      ['unsigned', body, { 'x-github-event': 'pull_request' }],
      [
        'wrongly signed',
        body,
        { 'x-github-event': 'pull_request', 'x-hub-signature-256': sign('not-the-secret', body) },
      ],
      ['oversized', JSON.stringify({ pad: 'x'.repeat(1_100_000) }), { 'x-github-event': 'pull_request' }],
      [
        'non-JSON',
        'payload=%7B%7D',
        { 'x-github-event': 'pull_request', 'x-hub-signature-256': sign(secret, 'payload=%7B%7D') },
      ],
      ['unknown event', body, { 'x-github-event': 'deployment', 'x-hub-signature-256': sign(secret, body) }],
    ];
    const badInput: DemoResult['badInput'] = [];
    log('Bad input (each must change nothing):');
    for (const [name, b, h] of cases) {
      const r = await hook(b, h);
      const j = await r.json();
      badInput.push({
        case: name,
        status: r.status,
        ...(j.error ? { error: j.error } : { answer: `${j.status}: ${j.reason}` }),
      });
      log(`  ${name.padEnd(15)} → ${r.status} ${j.error ?? `${j.status} (${j.reason})`}`);
    }
    const writesAfterBadInput = (await call('GET', '/work-tracking/writes')).total - before;
    log(`Tracker writes added by bad input: ${writesAfterBadInput}`);

    // 5. The standup of the PR author's day (Codertocat is mapped to dave).
    const standup = await call('POST', '/tools/standup_summary', {
      userId: 'dave',
      date: String(mergedPayload().pull_request.merged_at).slice(0, 10),
    });
    log(`Standup:\n${standup.summaryText}`);
    return {
      comments: ticket?.comments.map((c) => c.body) ?? [],
      ticketStatus: ticket?.status,
      webhook,
      audit,
      badInput,
      writesAfterBadInput,
      standup,
    };
  } finally {
    await server?.close();
    await tracker.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }
}
