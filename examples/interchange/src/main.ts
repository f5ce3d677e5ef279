/**
 * The interchange demo. Without arguments, in-process: alice's and bob's assistants (tenant acme)
 * and dave's (tenant globex) run four scenarios — an allowed query with withheld fields, a
 * round-limit escalation, a commitment waiting for bob's approval, a blocked cross-tenant attempt —
 * and both sides' audit entries are printed. With `--serve`, the same assistants run as
 * long-lived A2A servers (see serve.ts). Run: `pnpm --filter @agentgov/example-interchange start`.
 */
import type { AuditEntry } from '@agentgov/core';
import { InProcessNetwork } from '@agentgov/interchange';
import { serve } from './serve';
import { buildWorld, type Person } from './world';

const log = (line = '') => process.stdout.write(`${line}\n`);

if (process.argv.includes('--serve')) {
  await serve(process.argv.slice(2));
} else {
  await demo();
}

async function demo(): Promise<void> {
  const network = new InProcessNetwork();
  const { assistants } = await buildWorld(() => network);
  for (const a of Object.values(assistants)) network.register(a.agentId, a.node);
  const { alice, bob } = assistants;

  log('# 1. An allowed information query: data above the ceiling is withheld');
  const q = await alice.node.query({
    to: 'bob-assistant',
    message: {
      text: 'When is Bob free this week, and how is the release going?',
      items: [
        { source: 'calendar', field: 'my_free_slots', classification: 'internal', value: ['Tue 10:00'] },
        { source: 'drive', field: 'release_plan', classification: 'confidential', value: 'v2 in May' },
        { source: 'hr', field: 'salary_band', classification: 'restricted', value: 'L6' },
      ],
    },
  });
  if (q.isErr()) throw q.error;
  const { exchange, reply } = q.value;
  log(
    `exchange ${exchange.exchangeId}: ${exchange.outcome}, round ${exchange.currentRound}/${exchange.maxRounds}`,
  );
  log(`shared in the exchange: ${JSON.stringify(exchange.dataShared)}`);
  log(`withheld by alice's assistant: ${JSON.stringify(exchange.dataWithheld)}`);
  // Bob's assistant withholds from its answer on its own side: its record of the exchange says what.
  const bobsRecord = await bob.store.get('acme', exchange.exchangeId);
  log(`withheld by bob's assistant: ${JSON.stringify(bobsRecord?.dataWithheld ?? [])}`);
  log(`bob's answer: ${reply?.text} ${JSON.stringify(reply?.items.map((i) => `${i.source}.${i.field}`))}`);

  log('\n# 2. A round-limit escalation (information_query: 3 rounds)');
  const first = await alice.node.query({
    to: 'bob-assistant',
    message: { text: 'Round 1: any blockers?' },
    keepOpen: true,
  });
  if (first.isErr()) throw first.error;
  const id = first.value.exchange.exchangeId;
  for (let round = 2; round <= 4; round++) {
    const r = await alice.node.followUp(id, {
      message: { text: `Round ${round}: and now?` },
      keepOpen: true,
    });
    if (r.isErr()) log(`round ${round}: ${r.error.code} — ${r.error.message}`);
    else
      log(
        `round ${round}: ${r.value.status}, exchange ${r.value.exchange.outcome}${r.value.exchange.escalationReason ? ` (${r.value.exchange.escalationReason})` : ''}`,
      );
  }

  log('\n# 3. A commitment waits for a human');
  const ask = await alice.node.query({
    to: 'bob-assistant',
    exchangeType: 'commitment_request',
    message: { text: 'Can Bob own the v2 release notes?' },
  });
  if (ask.isErr()) throw ask.error;
  log(`alice's assistant: ${ask.value.status} (bob's assistant may not commit on its own)`);
  const attempt = await alice.node.query({
    to: 'bob-assistant',
    exchangeType: 'commitment_request',
    message: { text: 'I promise we ship Friday', commitment: { action: 'ship' } },
  });
  log(`an agent-written commitment: ${attempt.isErr() ? attempt.error.code : 'sent?!'}`);
  const decided = await bob.node.resolveApproval({
    exchangeId: ask.value.exchange.exchangeId,
    by: 'bob',
    decision: 'approved',
    note: 'Yes, I will write them by Thursday',
  });
  if (decided.isErr()) throw decided.error;
  const collected = await alice.node.collect(ask.value.exchange.exchangeId);
  if (collected.isErr()) throw collected.error;
  log(
    `bob approved: ${JSON.stringify(collected.value.reply?.commitment)}; exchange ${collected.value.exchange.outcome}`,
  );
  log(
    `recorded on bob's side: ${JSON.stringify((await bob.store.get('acme', ask.value.exchange.exchangeId))?.transcript.find((t) => t.kind === 'human_decision'))}`,
  );

  log('\n# 4. A cross-tenant attempt is blocked');
  const blocked = await alice.node.query({ to: 'dave-assistant', message: { text: 'Hi Dave' } });
  log(`alice → dave: ${blocked.isErr() ? `${blocked.error.code} (HTTP ${blocked.error.status})` : 'sent?!'}`);

  for (const person of ['alice', 'bob', 'dave'] as Person[]) {
    log(`\n# audit entries on ${person}'s side`);
    const entries = assistants[person].audit.entries;
    if (entries.length === 0) log('(none: nothing reached this side — the block happened before sending)');
    for (const e of entries) log(auditLine(e));
  }
}

function auditLine(e: AuditEntry): string {
  const d = e.actionDetail as Record<string, unknown>;
  return [
    e.actionType,
    `user=${e.userId}`,
    `side=${d.side}`,
    `event=${d.event}`,
    `exchange=${String(d.exchangeId).slice(0, 8)}`,
    `type=${d.exchangeType}`,
    `round=${d.currentRound}/${d.maxRounds}`,
    `level=${d.classificationLevel}`,
    `escalated=${d.escalated}`,
    `shared=${JSON.stringify(d.dataShared)}`,
    `withheld=${(d.dataWithheld as unknown[]).length}`,
    `result=${e.policyResult}`,
    `outcome=${e.outcome}`,
    d.code ? `code=${d.code}` : '',
  ]
    .filter(Boolean)
    .join(' ');
}
