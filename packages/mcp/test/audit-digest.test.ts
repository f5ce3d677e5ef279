/**
 * The arguments digest is made where it is first needed: for an approval before the call, for the
 * write-ahead entry of a forwarded call, and when the audit entry is written for a refusal made
 * before. Whatever the path, every entry of the call records the digest of its canonical
 * arguments, as when it was made up front.
 */
import { type AuditEntryInput, type AuditSink, type DecisionEngine, ok } from '@agentgov/core';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { argumentsDigest, governTools } from '../src/index';
import { newNotesState, notesServer } from './harness';

type Autonomy = 'autonomous' | 'notify' | 'approve' | 'block' | 'deny';

let autonomy: Autonomy = 'autonomous';
const engine: DecisionEngine = {
  name: 'settable',
  health: async () => true,
  decide: async () =>
    ok(
      autonomy === 'deny'
        ? { allow: false, deny: true, reason: 'denied', constraints: {} }
        : { allow: true, deny: false, reason: autonomy, constraints: { autonomy } },
    ),
};
const entries: AuditEntryInput[] = [];
const audit: AuditSink = {
  append: async (input) => {
    entries.push(input);
    return ok({ id: '0'.repeat(26), timestamp: '', ...input }) as never;
  },
};
const governed = governTools(notesServer(newNotesState()), {
  namespace: 'notes',
  identity: { tenantId: 'acme', userId: 'alice' },
  engine,
  audit,
  limits: { maxArgumentBytes: 64 },
});
afterAll(() => governed.close());

/** JSON arguments as the wire carries them, short and long (over the 64-byte limit). */
const json = fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v)) as unknown);
const args = fc.option(fc.dictionary(fc.string(), json, { maxKeys: 6 }), { nil: undefined });
const autonomies = fc.constantFrom<Autonomy>('autonomous', 'notify', 'approve', 'block', 'deny');
const tools = fc.constantFrom('notes__search_notes', 'notes__read_file');

describe('the audit entries record the digest of the canonical arguments on every path', () => {
  it('forwarded (write-ahead + outcome), refused by policy, awaiting approval, too large, refused upstream', async () => {
    autonomy = 'autonomous';
    await governed.listTools();
    await fc.assert(
      fc.asyncProperty(tools, args, autonomies, async (tool, a, level) => {
        autonomy = level;
        entries.length = 0;
        await governed.callTool(tool, a).catch(() => undefined);
        // One `tool_invocation` per call; a call that went upstream has its write-ahead
        // `policy_decision` before it, with the same request id.
        const invocations = entries.filter((e) => e.actionType === 'tool_invocation');
        expect(invocations).toHaveLength(1);
        // Went upstream: no refusal, or one made after the upstream was called (its own error
        // `upstream <code>`, `upstream_timeout`, `upstream_unavailable`, `cancelled`, a result
        // too large).
        const detail = invocations[0]?.actionDetail ?? {};
        const error = detail.error as string | undefined;
        const forwarded =
          error === undefined ||
          error.startsWith('upstream') ||
          error === 'cancelled' ||
          (error === 'payload_too_large' && / result /.test(String(invocations[0]?.policyReason)));
        expect(entries).toHaveLength(forwarded ? 2 : 1);
        if (forwarded) {
          expect(entries[0]).toMatchObject({
            actionType: 'policy_decision',
            requestId: invocations[0]?.requestId,
          });
          expect(entries[0]?.actionDetail).toMatchObject({ stage: 'forwarding', tool });
        }
        for (const e of entries) expect(e.actionDetail?.argumentsDigest).toBe(argumentsDigest(a));
      }),
      { numRuns: 300 },
    );
  });
});
