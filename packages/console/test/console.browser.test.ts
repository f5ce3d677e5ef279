/**
 * The console in a real browser (Debian's Chromium through playwright-core) against the reference
 * server on an embedded database (PGlite in a temporary directory): sign in as each role, approve
 * an exchange end to end (the initiator sees the outcome), an item decided elsewhere disappears,
 * a tool call waiting for approval shown with its arguments (as text) and rejected with a reason or without one, edit a policy with errors (schema, then the hierarchy check) and fix them, verify an audit entry
 * in the browser, tamper with that entry in the database and see the console say so, axe-core on
 * every page, phone width. The screenshots in the README are written by this run when
 * `AGENTGOV_SCREENSHOTS=1` (else to a temporary directory).
 *
 * Skipped with the reason when /usr/bin/chromium is missing; under AGENTGOV_REQUIRE_SERVICES=1
 * (CI, which installs it) a missing browser fails the run. No sleeps: every wait is a locator's.
 */
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Exchange } from '@agentgov/core';
import { makeExchange } from '@agentgov/core/testing';
import type { InterchangePlugin } from '@agentgov/interchange/gateway';
import { argumentsDigest, canonicalArguments } from '@agentgov/mcp';
import type { McpPlugin } from '@agentgov/mcp/gateway';
import { openStore, sql } from '@agentgov/store-kysely';
import { type Browser, type BrowserContext, chromium, type Page, type Route } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../../examples/server/src/config';
import { type RunningServer, startServer } from '../../../examples/server/src/server';
import { CHROMIUM, describeInChromium, seriousViolations } from './browser-harness';

// The README's screenshots are rewritten only on request (`AGENTGOV_SCREENSHOTS=1`); a plain test
// run writes them to a temporary directory, so running the tests never dirties the work tree.
const SHOTS =
  process.env.AGENTGOV_SCREENSHOTS === '1'
    ? fileURLToPath(new URL('../docs/', import.meta.url))
    : path.join(tmpdir(), `agentgov-console-shots-${process.pid}`);
// The MCP plugin mounted (its upstream is never called): tool calls waiting for approval.
const MCP_CONFIG = fileURLToPath(new URL('./fixtures/mcp.yaml', import.meta.url));
// Generous: CI runs this beside the rest of the suite on two cores (waits end as soon as the page is ready).
const WAIT = { timeout: 60_000 };

const ROLES = [
  {
    who: 'alice',
    role: 'enterprise_admin',
    pages: ['Inbox', 'Exchanges', 'Audit', 'Policies', 'Work', 'Status'],
  },
  { who: 'bob', role: 'org_admin', pages: ['Inbox', 'Exchanges', 'Audit', 'Policies', 'Work', 'Status'] },
  { who: 'carol', role: 'team_lead', pages: ['Inbox', 'Exchanges', 'Audit', 'Policies', 'Work', 'Status'] },
  { who: 'dave', role: 'user', pages: ['Inbox', 'Exchanges', 'Audit', 'Policies', 'Work', 'Status'] },
] as const;

function waiting(over: Partial<Exchange>): Exchange {
  const now = Date.now();
  return makeExchange({
    tenantId: 'acme',
    initiatorAgentId: 'agent-carol',
    initiatorUserId: 'carol',
    responderAgentId: 'agent-dave',
    responderUserId: 'dave',
    exchangeType: 'commitment_request',
    classificationLevel: 'internal',
    currentRound: 1,
    maxRounds: 3,
    startedAt: new Date(now).toISOString(),
    transcript: [
      {
        kind: 'message',
        round: 1,
        from: 'initiator',
        messageType: 'agent-generated',
        text: 'Can Dave review the Q3 security plan by Friday?',
        items: [
          { source: 'calendar', field: 'friday_slot', classification: 'internal', value: '14:00–15:00' },
        ],
        commitment: { action: 'review', detail: 'Q3 security plan' },
      },
      {
        kind: 'awaiting_human',
        round: 1,
        approvalId: `approval-${now}`,
        action: 'commitment_request',
        reason: 'a commitment needs its human',
        ceiling: 'internal',
        initiatorOrgUnit: 'sales',
        at: new Date(now).toISOString(),
        expiresAt: new Date(now + 3_600_000).toISOString(),
      },
    ],
    ...over,
  });
}

describeInChromium('console (real Chromium)', () => {
  let dataDir: string;
  let server: RunningServer;
  let browser: Browser;
  const start = async () => {
    server = await startServer(
      loadConfig({
        PORT: '0',
        HOST: '127.0.0.1',
        AGENTGOV_DATA_DIR: dataDir,
        // Checkpoints only when the server stops (its last round), never on a timer.
        AGENTGOV_CHECKPOINT_INTERVAL: '0',
      }),
      { env: { AGENTGOV_MCP_CONFIG: MCP_CONFIG } },
    );
  };
  /** Every write the pages sent (the test's own included): all JSON, all with their Origin. */
  const writes: Promise<{ method: string; url: string; headers: Record<string, string> }>[] = [];
  const interchange = () =>
    server.governance.plugins.find((p) => p.name === 'interchange') as InterchangePlugin;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    dataDir = await mkdtemp(path.join(tmpdir(), 'agentgov-console-'));
    await start();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  /** Signs in through the console: `/` → the console → the issuer's page → back to the console. */
  async function signIn(
    who: string,
    viewport = { width: 1280, height: 900 },
  ): Promise<[BrowserContext, Page]> {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    page.on('request', (r) => {
      if (r.method() !== 'GET' && new URL(r.url()).pathname.startsWith('/api/v1/'))
        writes.push(r.allHeaders().then((headers) => ({ method: r.method(), url: r.url(), headers })));
    });
    await page.goto(`${server.url}/`);
    await page.waitForURL(`${server.url}/console/`, WAIT);
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Sign in to agentgov' }).waitFor(WAIT);
    await page.getByRole('button', { name: `Sign in as ${who}` }).click();
    await page.waitForURL(`${server.url}/console/`, WAIT);
    await page.getByText(`${who}@acme.example`).waitFor(WAIT);
    return [context, page];
  }

  it('signs in as each role: the console shows who and the pages the role may use; axe finds nothing serious', async () => {
    for (const { who, role, pages } of ROLES) {
      const [context, page] = await signIn(who);
      await page.getByText(role).first().waitFor(WAIT);
      const nav = page.getByRole('navigation', { name: 'Main' });
      await nav.getByRole('link', { name: 'Inbox' }).waitFor(WAIT);
      expect(await nav.getByRole('link').allTextContents()).toEqual([...pages]);
      await page.getByRole('heading', { name: 'Inbox' }).waitFor(WAIT);
      await page.getByText(/Nothing waits for you|waiting for your decision/).waitFor(WAIT);
      expect(await seriousViolations(page)).toEqual([]);
      await context.close();
    }
  }, 300_000);

  it('approves an exchange end to end; the initiator sees the outcome; one decided elsewhere disappears', async () => {
    const first = waiting({
      dataWithheld: [
        { reason: 'above the reply ceiling (restricted)', description: 'salary band of the team' },
      ],
    });
    const second = waiting({
      transcript: waiting({}).transcript.map((e) => ({ ...e, text: 'Lunch on Monday?' })),
    });
    await interchange().store.insert(first);
    await interchange().store.insert(second);

    const [context, page] = await signIn('dave');
    const items = page.locator('article.item');
    await items.nth(1).waitFor(WAIT);
    expect(await items.count()).toBe(2);
    const item = items.filter({ hasText: 'Can Dave review the Q3 security plan by Friday?' });
    await item.getByText('carol asks: commitment request').waitFor(WAIT);
    await item.getByText('The data involved (1)').click();
    await item.getByText('calendar.friday_slot').waitFor(WAIT);
    await item.getByText('review — Q3 security plan').waitFor(WAIT);
    await page.screenshot({ path: path.join(SHOTS, 'inbox.png'), fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);

    // Reject needs a reason; approve with one.
    await item.getByRole('button', { name: /^Reject/ }).click();
    await item.getByText('Give a reason to reject.').waitFor(WAIT);
    await item.getByLabel(/Reason/).fill('Fine, Friday afternoon works.');
    await item.getByRole('button', { name: /^Approve/ }).click();
    await item.waitFor({ state: 'detached', ...WAIT });

    // The other one is approved elsewhere (the API, as dave): the polling inbox drops it.
    const other = items.filter({ hasText: 'Lunch on Monday?' });
    await other.waitFor(WAIT);
    const elsewhere = await page.evaluate(
      async ([url, approvalId]) =>
        (
          await fetch(url as string, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ approvalId }),
          })
        ).status,
      [
        `${server.url}/api/v1/exchanges/${second.exchangeId}/approve`,
        (second.transcript[1] as { approvalId: string }).approvalId,
      ],
    );
    expect(elsewhere).toBe(200);
    await other.waitFor({ state: 'detached', ...WAIT });
    await page.getByText('Nothing waits for you.').waitFor(WAIT);
    await context.close();

    // The initiator's side: carol reads the transcript with dave's decision.
    const [carolContext, carol] = await signIn('carol');
    await carol.getByRole('link', { name: 'Exchanges' }).click();
    await carol.getByRole('heading', { name: 'Exchanges' }).waitFor(WAIT);
    await carol.locator(`a[href="/console/exchanges/${first.exchangeId}"]`).click();
    await carol.getByText('Approved by dave').waitFor(WAIT);
    await carol.getByText('“Fine, Friday afternoon works.”').waitFor(WAIT);
    await carol
      .locator('.withheld', { hasText: 'salary band of the team' })
      .getByText('withheld')
      .first()
      .waitFor(WAIT);
    await carol.screenshot({ path: path.join(SHOTS, 'exchange.png'), fullPage: true });
    expect(await seriousViolations(carol)).toEqual([]);
    await carolContext.close();
  }, 300_000);

  it('shows a tool call waiting for approval with who asks, why and its arguments (as text); rejected with a reason, or without one (optional, as in the API)', async () => {
    const mcp = server.governance.plugins.find((p) => p.name === 'mcp') as McpPlugin;
    // The arguments as the proxy keeps them: canonical JSON, its digest the approval's. A value
    // that is HTML and one with a right-to-left override must show as text, the override escaped.
    const args = {
      path: '/notes/<img src=x onerror="document.title=1">.md',
      _: 'pad \u202Edm.txt',
      recursive: true,
    };
    const pending = await mcp.inbox.request(
      {
        tenantId: 'acme',
        userId: 'dave',
        policyTool: 'notes__delete_file',
        tool: 'notes__delete_file',
        upstream: 'notes',
        argumentsDigest: argumentsDigest(args),
        arguments: canonicalArguments(args),
        reason: 'notes__delete_file needs approval (actions policy)',
        ttlMs: 3_600_000,
      },
      new Date(),
    );
    // One recorded before the arguments were kept: only its digest.
    const before = await mcp.inbox.request(
      {
        tenantId: 'acme',
        userId: 'dave',
        policyTool: 'notes__send_message',
        tool: 'notes__send_message',
        upstream: 'notes',
        argumentsDigest: 'cd'.repeat(32),
        reason: 'notes__send_message needs approval (actions policy)',
        ttlMs: 3_600_000,
      },
      new Date(),
    );
    const [context, page] = await signIn('dave');
    const item = page.locator('article.item', { hasText: 'notes__delete_file' });
    await item.getByText("dave's assistant wants to call notes__delete_file").waitFor(WAIT);
    await item.getByText('notes__delete_file needs approval (actions policy)').waitFor(WAIT);
    await item.getByText(argumentsDigest(args)).waitFor(WAIT);
    // The whole arguments, pretty-printed, as text: the HTML is characters, not an element.
    expect(await item.locator('pre').textContent()).toBe(
      [
        '{',
        '  "_": "pad \\u202edm.txt",',
        '  "path": "/notes/<img src=x onerror=\\"document.title=1\\">.md",',
        '  "recursive": true',
        '}',
      ].join('\n'),
    );
    expect(await item.locator('img').count()).toBe(0);
    expect(await page.title()).not.toBe('1');
    const old = page.locator('article.item', { hasText: 'notes__send_message' });
    await old.getByText('arguments not recorded (approval made before arguments were kept)').waitFor(WAIT);
    await old.getByText('cd'.repeat(32)).waitFor(WAIT);
    expect(await old.locator('pre').count()).toBe(0);
    await page.screenshot({ path: path.join(SHOTS, 'inbox-tool-call.png'), fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
    await item.getByLabel(/Reason \(optional/).fill('Not the production notes, please.');
    await item.getByRole('button', { name: /^Reject/ }).click();
    await item.waitFor({ state: 'detached', ...WAIT });
    const decided = await mcp.inbox.get('acme', pending.id, new Date());
    expect(decided).toMatchObject({
      status: 'rejected',
      decidedBy: 'dave',
      note: 'Not the production notes, please.',
      arguments: canonicalArguments(args),
    });
    // The API takes a rejection without a note: so does the console (no reason asked for).
    await old.getByRole('button', { name: /^Reject/ }).click();
    await old.waitFor({ state: 'detached', ...WAIT });
    expect(await page.getByText('Give a reason to reject.').count()).toBe(0);
    const unexplained = await mcp.inbox.get('acme', before.id, new Date());
    expect(unexplained?.status).toBe('rejected');
    expect(unexplained?.note ?? undefined).toBeUndefined();
    await context.close();
  }, 300_000);

  it('edits a policy: a schema error on its line, then a hierarchy violation on its line, fixed and applied after a diff', async () => {
    const [context, page] = await signIn('alice');
    await page.getByRole('link', { name: 'Policies' }).click();
    await page.getByRole('heading', { name: 'Hierarchy: actions' }).waitFor(WAIT);
    // The enterprise policy first: send_mail needs approval.
    await page.getByRole('button', { name: 'New actions policy' }).click();
    const editor = page.getByLabel('Policy YAML');
    await editor.fill(
      'scope: enterprise\nscopeId: acme\ndomain: actions\nname: tool autonomy\nversion: 1.0.0\ncontent:\n  actions:\n    send_mail: sometimes\nchangeReason: first rules\n',
    );
    await page.getByText(/^Line 8: content\.actions\.send_mail/).waitFor(WAIT);
    expect(await page.getByRole('button', { name: 'Review changes' }).isDisabled()).toBe(true);
    await page.screenshot({ path: path.join(SHOTS, 'policy-error.png'), fullPage: true });
    await editor.fill(
      'scope: enterprise\nscopeId: acme\ndomain: actions\nname: tool autonomy\nversion: 1.0.0\ncontent:\n  actions:\n    send_mail: approve\nchangeReason: first rules\n',
    );
    await page.getByText('✓ Valid policy file').waitFor(WAIT);
    await page.getByRole('button', { name: 'Review changes' }).click();
    await page.getByText('+     send_mail: approve').waitFor(WAIT);
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('button', { name: /tool autonomy/ }).waitFor(WAIT);

    // An org policy looser than the enterprise: the hierarchy check's error lands on its line.
    await page.getByRole('button', { name: 'New actions policy' }).click();
    await editor.fill(
      'scope: org\nscopeId: eng\ndomain: actions\nname: eng tools\nversion: 1.0.0\ncontent:\n  actions:\n    send_mail: autonomous\nchangeReason: eng wants speed\n',
    );
    await page.getByText('✓ Valid policy file').waitFor(WAIT);
    await page.getByRole('button', { name: 'Review changes' }).click();
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText(/^Line 8: content\.actions\.send_mail/).waitFor(WAIT);
    await page.locator('.gutter span.err', { hasText: '8' }).waitFor(WAIT);
    await editor.fill(
      'scope: org\nscopeId: eng\ndomain: actions\nname: eng tools\nversion: 1.0.0\ncontent:\n  actions:\n    send_mail: block\nchangeReason: eng blocks mail\n',
    );
    await page.getByRole('button', { name: 'Review changes' }).click();
    await page.getByText('+     send_mail: block').waitFor(WAIT);
    await page.screenshot({ path: path.join(SHOTS, 'policy-diff.png'), fullPage: true });
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('button', { name: /eng tools/ }).waitFor(WAIT);
    await page.locator('.split pre.yaml', { hasText: 'send_mail: block' }).waitFor(WAIT);
    expect(await seriousViolations(page)).toEqual([]);

    // Alice's path (enterprise → org eng → team platform → alice) holds both policies, in order.
    const userPath = page.locator('article', {
      has: page.getByRole('heading', { name: "A user's path: actions" }),
    });
    await userPath.getByText('eng tools').waitFor(WAIT);
    expect(await userPath.locator('ol.path > li').allTextContents()).toEqual([
      expect.stringMatching(/^enterprise acmetool autonomy/),
      expect.stringMatching(/^org engeng tools/),
      expect.stringMatching(/^team platform · no policy: inherits/),
      expect.stringMatching(/^user alice · no policy: inherits/),
    ]);

    // Why was dave denied? Alice chooses the user: the org policy decided, level by level.
    const why = page.locator('article', {
      has: page.getByRole('heading', { name: 'Why? A decision for a user' }),
    });
    await why.getByLabel('User').fill('dave');
    await why.getByRole('button', { name: 'Explain' }).click();
    await why.getByText('Decided by: eng tools (org eng, v1.0.0)').waitFor(WAIT);
    await why.getByText(/^For dave: denied tool send_mail is blocked by policy/).waitFor(WAIT);
    expect(await why.locator('ol.trace > li').allTextContents()).toEqual([
      expect.stringMatching(
        /^enterprise acmetool autonomy v1\.0\.0: actions\.send_mail = approveafter this level: allowed/,
      ),
      expect.stringMatching(/^org engeng tools v1\.0\.0: actions\.send_mail = blockafter this level: denied/),
      expect.stringMatching(/^team platform · no policy: inheritsafter this level: denied/),
      expect.stringMatching(/^user dave · no policy: inheritsafter this level: denied/),
    ]);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: path.join(SHOTS, 'policies.png'), fullPage: true });

    // Dave may ask only about himself: another user is not found for him.
    const [daveContext, davePage] = await signIn('dave');
    await davePage.getByRole('link', { name: 'Policies' }).click();
    const daveWhy = davePage.locator('article', {
      has: davePage.getByRole('heading', { name: 'Why? A decision for a user' }),
    });
    await daveWhy.getByLabel('User').fill('alice');
    await daveWhy.getByRole('button', { name: 'Explain' }).click();
    await daveWhy.getByRole('alert').getByText('user alice not found').waitFor(WAIT);
    await daveWhy.getByLabel('User').fill('dave');
    await daveWhy.getByRole('button', { name: 'Explain' }).click();
    await daveWhy.getByText('Decided by: eng tools (org eng, v1.0.0)').waitFor(WAIT);
    await daveContext.close();
    await context.close();
  }, 300_000);

  it('verifies an audit entry in the browser; after tampering with it in the database the console says so', async () => {
    // The server signs a checkpoint in its last round when it stops: restart to have one.
    await server.close();
    await start();
    const verify = async (file: string) => {
      const [context, page] = await signIn('alice');
      await page.getByRole('link', { name: 'Audit' }).click();
      await page.getByLabel('Action').selectOption('policy_change');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/actionType=policy_change/, WAIT);
      const rows = page.locator('tbody tr');
      await rows.nth(1).waitFor(WAIT);
      // The oldest policy change: the enterprise policy.
      await rows.last().getByRole('link').click();
      await page.getByRole('heading', { name: /policy change by alice/ }).waitFor(WAIT);
      const id = page.url().split('/').pop() as string;
      await page.getByRole('button', { name: 'Verify this entry' }).click();
      const verdict = page.locator('.verdict');
      await verdict.waitFor(WAIT);
      await page.screenshot({ path: path.join(SHOTS, file), fullPage: true });
      expect(await seriousViolations(page)).toEqual([]);
      const result = {
        verdict: await verdict.textContent(),
        checks: await page.locator('.checks li').allTextContents(),
      };
      await context.close();
      return { id, ...result };
    };
    const good = await verify('audit-verified.png');
    expect(good.verdict).toMatch(/^Verified/);
    expect(good.checks.map((c) => c.split(':')[0])).toEqual([
      '✓ Checkpoint key passed',
      '✓ Signed note (C2SP checkpoint) passed',
      '✓ Signed checkpoint (JWS) passed',
      '✓ Proof is for this entry passed',
      '✓ Inclusion proof (RFC 9162) passed',
    ]);

    // Checkpoints over time: the checkpoint just verified is kept; after another checkpoint the
    // log is shown to have only grown since.
    const note = good.checks.find((c) => c.startsWith('✓ Signed note')) ?? '';
    const [, keptSize = '', keptRoot = ''] = /, (\d+) entries, root ([0-9a-f]{64})/.exec(note) ?? [];
    expect(keptRoot).toMatch(/^[0-9a-f]{64}$/);
    const growth = async (file: string, keptRoot: string) => {
      const [context, page] = await signIn('alice');
      await page.getByRole('link', { name: 'Audit' }).click();
      await page.getByText('Checkpoints over time').click();
      await page.getByLabel('Kept tree size').fill(keptSize);
      await page.getByLabel('Kept root hash').fill(keptRoot);
      await page.getByRole('button', { name: 'Check the log only grew' }).click();
      const verdict = page.locator('.checkpoints .verdict');
      await verdict.waitFor(WAIT);
      await page.screenshot({ path: path.join(SHOTS, file), fullPage: true });
      const result = {
        verdict: await verdict.textContent(),
        checks: await page.locator('.checkpoints .checks li').allTextContents(),
      };
      await context.close();
      return result;
    };
    await server.close();
    await start();
    const grew = await growth('audit-consistent.png', keptRoot);
    expect(grew.verdict).toBe('The log only grew since the checkpoint you kept.');
    expect(grew.checks.at(-1)).toMatch(
      new RegExp(`^✓ Consistency proof \\(RFC 9162\\) passed: the tree of ${keptSize} entries`),
    );

    // Someone with the database's superuser rewrites the entry and its hash (as an attacker
    // would), past the append-only trigger.
    await server.close();
    try {
      const stores = await openStore({ database: dataDir });
      try {
        await sql`SET session_replication_role = replica`.execute(stores.db);
        const changed = await stores.db
          .updateTable('audit_entries')
          .set({ policy_reason: 'nothing to see here', hash: 'f'.repeat(64) })
          .where('id', '=', good.id)
          .executeTakeFirst();
        expect(Number(changed.numUpdatedRows)).toBe(1);
      } finally {
        await stores.close();
      }
    } finally {
      await start();
    }
    const bad = await verify('audit-tampered.png');
    expect(bad.id).toBe(good.id);
    expect(bad.verdict).toMatch(/^Verification FAILED/);
    expect(bad.checks.find((c) => c.startsWith('✗ Inclusion proof (RFC 9162) failed'))).toMatch(
      /not the signed root/,
    );
    // The signatures themselves still hold: it is the entry that no longer matches them.
    expect(bad.checks.filter((c) => c.startsWith('✓')).length).toBe(4);
    // A kept checkpoint this log does not continue (its root differs) is refused. (The rewrite
    // above came after the latest checkpoint, so the signed checkpoints themselves still agree:
    // the inclusion check is what catches it; the server refuses to sign a broken chain.)
    const otherRoot = (keptRoot[0] === '0' ? '1' : '0') + keptRoot.slice(1);
    const forked = await growth('audit-forked.png', otherRoot);
    expect(forked.verdict).toBe('Consistency FAILED: the log was rewritten since the checkpoint you kept.');
    expect(forked.checks.at(-1)).toMatch(
      /^✗ Consistency proof \(RFC 9162\) failed: .*entries before it were changed or removed$/,
    );
  }, 300_000);

  it('the other pages render without serious axe violations, at desktop and phone width', async () => {
    const [context, page] = await signIn('alice');
    for (const [link, heading, shot] of [
      ['Audit', 'Audit log', 'audit.png'],
      ['Work', 'Work', 'work.png'],
      ['Status', 'Status', 'status.png'],
    ] as const) {
      await page.getByRole('link', { name: link, exact: true }).click();
      await page.getByRole('heading', { name: heading, exact: true }).waitFor(WAIT);
      await page
        .locator('[aria-busy="true"]')
        .first()
        .waitFor({ state: 'detached', ...WAIT });
      await page.screenshot({ path: path.join(SHOTS, shot), fullPage: true });
      expect(await seriousViolations(page)).toEqual([]);
    }
    await context.close();
    await interchange().store.insert(waiting({}));
    const [phoneContext, phone] = await signIn('dave', { width: 390, height: 844 });
    await phone.getByText('carol asks: commitment request').waitFor(WAIT);
    // Nothing wider than the screen.
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await phone.screenshot({ path: path.join(SHOTS, 'phone-inbox.png'), fullPage: true });
    expect(await seriousViolations(phone)).toEqual([]);
    // Keyboard: the skip link is the first stop and moves to the content.
    await phone.keyboard.press('Tab');
    expect(await phone.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    // Keyboard only: Tab to the item's Approve button and press Enter; the item is decided.
    const focused = () => phone.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? '');
    for (let i = 0; i < 40 && !(await focused()).startsWith('Approve exchange from carol'); i++)
      await phone.keyboard.press('Tab');
    expect(await focused()).toBe('Approve exchange from carol');
    await phone.keyboard.press('Enter');
    await phone.getByText('carol asks: commitment request').waitFor({ state: 'detached', ...WAIT });
    await phoneContext.close();
  }, 300_000);

  it('pages the audit log at the first page’s snapshot: entries appended meanwhile shift no row; “Show newest” leaves it', async () => {
    const [context, page] = await signIn('alice');
    // Each read of the audit log is an audited data access itself: 25 reads make two pages at least.
    await page.evaluate(async () => {
      for (let i = 0; i < 25; i++) await fetch('/api/v1/audit?pageSize=1');
    });
    await page.getByRole('link', { name: 'Audit' }).click();
    const status = page.locator('p[aria-live]');
    await status.filter({ hasText: /page 1 of/ }).waitFor(WAIT);
    const rows = page.locator('tbody tr a');
    const hrefs = () => rows.evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    const first = await hrefs();
    expect(first).toHaveLength(20);
    await page.getByRole('button', { name: 'Next' }).click();
    await status.filter({ hasText: /page 2 of/ }).waitFor(WAIT);
    expect(new URL(page.url()).searchParams.get('snapshot')).toMatch(/^\d+$/);
    const second = await hrefs();
    expect(second.length).toBeGreaterThan(0);
    expect(second.filter((h) => first.includes(h))).toEqual([]);
    // Two more audited reads happened (pages 1 and 2): page 1 at the snapshot is as it was.
    await page.getByRole('button', { name: 'Previous' }).click();
    await status.filter({ hasText: /page 1 of \d+ · as of entry \d+/ }).waitFor(WAIT);
    expect(await hrefs()).toEqual(first);
    await page.getByRole('button', { name: 'Show newest' }).click();
    await page.waitForURL((u) => !u.searchParams.has('snapshot'), WAIT);
    await expect.poll(() => status.textContent(), WAIT).toMatch(/page 1 of \d+$/);
    // The newest page starts with the reads made since: the console's own.
    const newest = await hrefs();
    expect(first).not.toContain(newest[0]);
    expect(newest).toContain(first[0]);
    // A snapshot the API would refuse (past 16 digits) is no snapshot: the newest page, no error.
    await page.goto(`${server.url}/console/audit?snapshot=12345678901234567`);
    await status.filter({ hasText: /page 1 of \d+$/ }).waitFor(WAIT);
    expect(await page.getByRole('button', { name: 'Show newest' }).count()).toBe(0);
    await context.close();
  });

  it('signs out, and out everywhere: another session of the user ends and its console says so', async () => {
    const [other, otherPage] = await signIn('carol');
    await otherPage.getByRole('heading', { name: 'Inbox' }).waitFor(WAIT);
    const [context, page] = await signIn('carol');
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.getByText('Signed out of every session.').waitFor(WAIT);
    expect(await page.evaluate(async () => (await fetch('/api/v1/auth/userinfo')).status)).toBe(401);
    // The other browser's console finds out at its next poll.
    await otherPage.getByText('Your session has ended. Sign in again.').waitFor(WAIT);
    await other.close();
    const [again, againPage] = await signIn('carol');
    await againPage.getByRole('button', { name: 'Sign out', exact: true }).click();
    await againPage.getByText('Signed out.').waitFor(WAIT);
    await again.close();
    await context.close();
  }, 300_000);

  it('a sign-out everywhere the server refuses says so, and stays signed in until it is done', async () => {
    const [other, otherPage] = await signIn('carol');
    await otherPage.getByRole('heading', { name: 'Inbox' }).waitFor(WAIT);
    const [context, page] = await signIn('carol');
    await page.getByRole('heading', { name: 'Inbox' }).waitFor(WAIT);
    // The session store fails for the other session's DELETE (a fault at the network layer).
    const refuse = (route: Route) =>
      route.request().method() === 'DELETE'
        ? route.fulfill({
            status: 503,
            contentType: 'application/json',
            body: JSON.stringify({
              error: 'service_unavailable',
              message: 'The session store is unavailable',
            }),
          })
        : route.continue();
    await page.route('**/api/v1/auth/sessions/*', refuse);
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page
      .getByText(/1 of your other sessions could not be ended; you are still signed in here/)
      .waitFor(WAIT);
    expect(await page.getByText('Signed out of every session.').count()).toBe(0);
    expect(await page.evaluate(async () => (await fetch('/api/v1/auth/userinfo')).status)).toBe(200);
    // Once the store answers again, the same button ends both.
    await page.unroute('**/api/v1/auth/sessions/*', refuse);
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.getByText('Signed out of every session.').waitFor(WAIT);
    await otherPage.getByText('Your session has ended. Sign in again.').waitFor(WAIT);
    await other.close();
    await context.close();
  }, 300_000);

  it('every write the console sent was JSON with its own Origin (the kernel’s CSRF check of cookie writes)', async () => {
    const sent = await Promise.all(writes);
    const kinds = new Set(
      sent.map(
        (w) =>
          `${w.method} ${new URL(w.url).pathname.replace(/\/(exchanges|approvals|sessions|policies)\/[^/]+/, '/$1/{id}')}`,
      ),
    );
    for (const expected of [
      'POST /api/v1/exchanges/{id}/approve',
      'POST /api/v1/mcp/approvals/{id}/reject',
      'POST /api/v1/policies',
      'POST /api/v1/decisions/explain',
      'DELETE /api/v1/auth/sessions/{id}',
      'POST /api/v1/auth/logout',
    ])
      expect(kinds).toContain(expected);
    for (const w of sent) {
      expect(w.headers['content-type'], `${w.method} ${w.url}`).toBe('application/json');
      expect(w.headers.origin, `${w.method} ${w.url}`).toBe(new URL(w.url).origin);
    }
  });
});
