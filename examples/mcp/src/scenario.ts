/**
 * The scenario: the notes server runs as a real stdio child behind the governing proxy; a real SDK
 * client (the assistant, acting for alice) lists and calls its tools. The actions policy gives
 * each tool another autonomy; the audit log is the tamper-evident one of @agentgov/audit.
 */
import { fileURLToPath } from 'node:url';
import { createAuditLog, generateAuditKeys, verifyCheckpoint, verifyInclusion } from '@agentgov/audit';
import {
  InMemoryAuditStore,
  InMemoryOrgDirectory,
  InMemoryPolicyStore,
  InMemorySecretStore,
  unwrapOrThrow,
} from '@agentgov/core';
import { createMcpProxy, META_AUTONOMY, refusalOf } from '@agentgov/mcp';
import { BuiltinDecisionEngine, EffectivePolicyResolver, PolicyService } from '@agentgov/policy';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const ACTIONS_POLICY = `default_autonomy: autonomous
actions:
  notes__read_file: notify
  notes__send_message: approve
blocked: [notes__delete_file]
`;

export interface ScenarioReport {
  listed: Record<string, string>;
  search: unknown;
  blocked: string | undefined;
  approval: {
    id: string;
    firstRefusal: string | undefined;
    afterApproval: string;
    replay: string | undefined;
  };
  notice: { message: unknown; recorded: number };
  audit: { tool: unknown; decision: unknown; outcome: string; approver?: unknown }[];
  /** The write-ahead entries (one per call that went upstream), and whether each call that succeeded has one. */
  writeAhead: { entries: number; everyRunPaired: boolean };
  proofVerified: boolean;
}

export async function runScenario(log: (line: string) => void = console.log): Promise<ScenarioReport> {
  // Policies: the enterprise's actions policy, decided by the built-in engine.
  const policies = new InMemoryPolicyStore();
  const directory = new InMemoryOrgDirectory();
  await directory.place('acme', 'alice', { orgUnit: 'eng' });
  const resolver = new EffectivePolicyResolver({ store: policies, directory });
  const keys = await generateAuditKeys();
  const secrets = new InMemorySecretStore({
    'audit-commitment-key': keys.commitmentKey,
    'audit-signing-key': keys.signingKey,
  });
  const auditStore = new InMemoryAuditStore();
  const audit = createAuditLog({ store: auditStore, secrets });
  const service = new PolicyService({
    store: policies,
    directory,
    audit,
    onChange: (t) => resolver.invalidate(t),
  });
  unwrapOrThrow(
    await service.create(
      { userId: 'root', tenantId: 'acme', roles: ['enterprise_admin'] },
      {
        scope: 'enterprise',
        scopeId: 'acme',
        domain: 'actions',
        name: 'tools',
        version: '1.0.0',
        content: ACTIONS_POLICY,
        changeReason: 'example',
      },
    ),
  );

  // The proxy: the notes server as a stdio child, alice as the session's user.
  const upstream = fileURLToPath(new URL('./upstream.ts', import.meta.url));
  const proxy = createMcpProxy(
    {
      identity: { tenantId: 'acme', userId: 'alice' },
      upstreams: [
        {
          namespace: 'notes',
          transport: 'stdio',
          command: process.execPath,
          args: ['--import', 'tsx', upstream],
          classification: 'internal',
        },
      ],
    },
    { engine: new BuiltinDecisionEngine(resolver), audit },
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await proxy.connect(serverSide, { tenantId: 'acme', userId: 'alice' });
  const assistant = new Client({ name: 'assistant', version: '1.0.0' });
  const messages: unknown[] = [];
  assistant.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    messages.push(n.params.data);
  });
  await assistant.connect(clientSide);

  try {
    const { tools } = await assistant.listTools();
    const listed = Object.fromEntries(tools.map((t) => [t.name, String(t._meta?.[META_AUTONOMY])]));
    log(`tools/list: ${JSON.stringify(listed)}`);

    const search = (await assistant.callTool({ name: 'notes__search_notes', arguments: { query: 'plan' } }))
      .structuredContent;
    log(`search_notes (autonomous): ${JSON.stringify(search)}`);

    const blocked = refusalOf(
      await assistant
        .callTool({ name: 'notes__delete_file', arguments: { path: 'plan.md' } })
        .catch((e) => e),
    );
    log(
      `delete_file (blocked: not listed, refused with the policy's reason): ${blocked?.refusal} — ${blocked?.reason}`,
    );

    const message = { name: 'notes__send_message', arguments: { to: 'bob', text: 'the plan is ready' } };
    const first = refusalOf(await assistant.callTool(message).catch((e) => e));
    log(`send_message (approve): ${first?.refusal}, approval ${first?.approvalId}`);
    const decided = await proxy.governor.inbox.decide(
      'acme',
      first?.approvalId as string,
      { approved: true, by: 'alice' },
      new Date(),
    );
    log(`alice approves ${decided?.id} (this call, these arguments, once)`);
    const afterApproval = (await assistant.callTool(message)).content;
    log(`send_message again: ${JSON.stringify(afterApproval)}`);
    const replay = refusalOf(await assistant.callTool(message).catch((e) => e));
    log(`send_message replayed: ${replay?.refusal}`);

    await assistant.callTool({ name: 'notes__read_file', arguments: { path: 'plan.md' } });
    const notices = await proxy.governor.inbox.notices('acme');
    log(`read_file (notify): notification ${JSON.stringify(messages[0])}; ${notices.length} notice recorded`);

    const { records } = await auditStore.query(
      'acme',
      { actionType: 'tool_invocation' },
      { offset: 0, limit: 100 },
    );
    const entries = records.map((r) => ({
      tool: r.entry.actionDetail.tool,
      decision: r.entry.actionDetail.decision,
      outcome: r.entry.outcome,
      ...(r.entry.actionDetail.approverUserId ? { approver: r.entry.actionDetail.approverUserId } : {}),
    }));
    for (const e of entries) log(`audit: ${JSON.stringify(e)}`);
    // Each call that went upstream was on the log before it went: its write-ahead entry.
    const ahead = (
      await auditStore.query('acme', { actionType: 'policy_decision' }, { offset: 0, limit: 100 })
    ).records.filter((r) => r.entry.actionDetail.stage === 'forwarding');
    const aheadIds = new Set(ahead.map((r) => r.entry.requestId));
    const succeeded = records.filter((r) => r.entry.outcome === 'success');
    const writeAhead = {
      entries: ahead.length,
      everyRunPaired: succeeded.every((r) => aheadIds.has(r.entry.requestId)),
    };
    log(
      `write-ahead: ${writeAhead.entries} calls recorded before they went upstream; each that succeeded has one: ${writeAhead.everyRunPaired}`,
    );
    await audit.checkpoint('acme');
    const last = records.at(-1);
    const proof = unwrapOrThrow(await audit.proveInclusion('acme', last?.entry.id as string));
    if (!proof.checkpoint) throw new Error('no checkpoint');
    const head = unwrapOrThrow(await verifyCheckpoint(proof.checkpoint.jws, keys.publicJwk));
    const proofVerified = verifyInclusion(
      proof.leafHash,
      proof.leafIndex,
      head.treeSize,
      proof.proof,
      head.rootHash,
    ).isOk();
    log(
      `inclusion proof of the last entry in checkpoint ${head.treeSize}: ${proofVerified ? 'verified' : 'FAILED'}`,
    );
    return {
      listed,
      search,
      blocked: blocked?.refusal,
      approval: {
        id: first?.approvalId as string,
        firstRefusal: first?.refusal,
        afterApproval: JSON.stringify(afterApproval),
        replay: replay?.refusal,
      },
      notice: { message: messages[0], recorded: notices.length },
      audit: entries,
      writeAhead,
      proofVerified,
    };
  } finally {
    await assistant.close();
    await proxy.close();
  }
}
