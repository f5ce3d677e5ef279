/**
 * The `approve` autonomy: a call goes ahead with a human's approval of this call with these
 * arguments — a granted approval in the inbox (single use, bound to the user, the tool and the
 * argument digest), else MCP elicitation to the assistant's user when the client supports it and
 * the whole arguments fit its message, else a pending approval a human decides through the
 * governance service. Either way the human is shown the canonical arguments themselves (the
 * pending approval keeps them), never only the assistant's account of the call.
 */
import type { Clock, ToolApproval, ToolApprovalKey, ToolCallInbox } from '@agentgov/core';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { ToolCallRefused } from './errors';
import { type CallFacts, digestOf } from './facts';
import type { CallContext, ToolEntry, ToolSession } from './session';

export interface ApprovalDeps {
  inbox: ToolCallInbox;
  clock: Clock;
  approvalTtlMs: number;
  /** Whether an approval may be asked by elicitation (the configuration's `elicitApprovals`). */
  elicit: boolean;
}

/**
 * The most characters of canonical arguments an elicitation message shows. Longer arguments are
 * never elicited (a cut would hide what is approved): their call waits in the inbox.
 */
const ELICITED_ARGUMENTS_MAX = 2000;

/** True when this call may go ahead, else the refusal (the facts record how it was decided). */
export async function approvalOf(
  deps: ApprovalDeps,
  session: ToolSession,
  entry: ToolEntry,
  facts: CallFacts,
  ctx: CallContext,
): Promise<true | ToolCallRefused> {
  const { identity } = session;
  const key = {
    tenantId: identity.tenantId,
    userId: identity.userId,
    policyTool: entry.policyTool,
    argumentsDigest: digestOf(facts) as string,
  };
  // A granted approval is found here and taken (`consume`, single use) only once the call is on
  // the log (the governor, after its write-ahead entry): a call the log refuses does not spend it.
  const now = deps.clock.now();
  const { granted, rejected } = await approvalsOf(deps.inbox, key, now, deps.approvalTtlMs);
  if (rejected && !granted) {
    // A human said no to this very call: the assistant is told so, not handed a new approval to
    // ask again at once; after the approval lifetime the same call may ask anew.
    facts.approver = rejected.decidedBy;
    facts.approvalId = rejected.id;
    facts.approvalVia = 'inbox';
    const until = new Date(Date.parse(rejected.decidedAt as string) + deps.approvalTtlMs).toISOString();
    return new ToolCallRefused(
      'policy_denied',
      `${rejected.decidedBy ?? 'a human'} rejected this call with these arguments${rejected.note ? `: ${rejected.note}` : ''} (approval ${rejected.id}); the same call is refused until ${until}, then asks again`,
      { tool: entry.exposed, approvalId: rejected.id },
    );
  }
  if (granted) {
    facts.approver = granted.decidedBy ?? identity.userId;
    facts.approvalId = granted.id;
    facts.approvalVia = 'inbox';
    facts.approvalKey = key;
    facts.result = 'allow';
    return true;
  }
  // Elicitation shows the arguments in its message, whole or not at all: arguments longer than the
  // message shows (keys are sorted, so a padding key such as "_" would push the real values past
  // any cut) go to the inbox instead, where the approver sees all of them.
  const canonical = facts.canonical ?? '{}';
  if (deps.elicit && ctx.elicit && canonical.length <= ELICITED_ARGUMENTS_MAX)
    return elicited(ctx, identity.userId, entry, facts, canonical);
  const pending = await deps.inbox.request(
    {
      ...key,
      // What the human deciding reads: exactly the text the digest is of.
      arguments: canonical,
      tool: entry.exposed,
      upstream: entry.upstream.namespace,
      reason: facts.reason,
      ttlMs: deps.approvalTtlMs,
    },
    deps.clock.now(),
  );
  facts.result = 'require_approval';
  facts.outcome = 'pending_approval';
  facts.approvalId = pending.id;
  facts.approvalVia = 'inbox';
  return new ToolCallRefused(
    'approval_required',
    `a human must approve this call (approval ${pending.id}, until ${pending.expiresAt}); call again with the same arguments once it is approved`,
    { tool: entry.exposed, approvalId: pending.id, expiresAt: pending.expiresAt },
  );
}

/**
 * Of the user's approvals of exactly this key: the approved, unexpired, unused one that `consume`
 * would take (not taken) — the oldest requested, the last of them in the list (newest first) —
 * and the newest one when a human rejected it less than an approval lifetime ago.
 */
async function approvalsOf(
  inbox: ToolCallInbox,
  key: ToolApprovalKey,
  now: Date,
  ttlMs: number,
): Promise<{ granted: ToolApproval | undefined; rejected: ToolApproval | undefined }> {
  const call = { policyTool: key.policyTool, argumentsDigest: key.argumentsDigest };
  const [approved, rejections] = await Promise.all([
    inbox.list(key.tenantId, now, { userIds: [key.userId], call, status: 'approved' }),
    inbox.list(key.tenantId, now, { userIds: [key.userId], call, status: 'rejected', limit: 1 }),
  ]);
  const granted = approved.at(-1);
  const newest = rejections[0];
  const rejected =
    newest?.decidedAt !== undefined && Date.parse(newest.decidedAt) + ttlMs > now.getTime()
      ? newest
      : undefined;
  return { granted, rejected };
}

/**
 * Takes the granted approval the call was found to have (`approvalOf`), now that the call is on the
 * log: true when taken (the facts name the one taken), else the refusal — another call with the
 * same arguments took it meanwhile (single use), or it lapsed.
 */
export async function takeApproval(
  inbox: ToolCallInbox,
  facts: CallFacts,
  now: Date,
): Promise<true | ToolCallRefused> {
  const key = facts.approvalKey as ToolApprovalKey;
  const taken = await inbox.consume(key, now);
  if (taken) {
    facts.approvalId = taken.id;
    facts.approver = taken.decidedBy ?? key.userId;
    return true;
  }
  facts.result = 'require_approval';
  return new ToolCallRefused(
    'policy_denied',
    'the approval of this call was used by another call with the same arguments meanwhile, or lapsed (an approval is used once): call again to ask for a new one',
    { tool: facts.name },
  );
}

/** Asks the assistant's user (MCP elicitation, a form with one boolean) about these whole arguments. */
async function elicited(
  ctx: CallContext,
  userId: string,
  entry: ToolEntry,
  facts: CallFacts,
  canonical: string,
): Promise<true | ToolCallRefused> {
  let answer: ElicitResult;
  try {
    // Called on the context: its `elicit` may be a method.
    answer = await (ctx.elicit as NonNullable<CallContext['elicit']>).call(ctx, {
      mode: 'form',
      message:
        `Approve this call of ${entry.exposed}? (${facts.reason})\n` +
        `Arguments (canonical JSON): ${canonical}`,
      requestedSchema: {
        type: 'object',
        properties: {
          approve: {
            type: 'boolean',
            title: 'Approve',
            description: `Run ${entry.exposed} with these arguments once`,
          },
        },
        required: ['approve'],
      },
    });
  } catch (error) {
    facts.result = 'require_approval';
    return new ToolCallRefused('policy_denied', `the approval was not given: ${(error as Error).message}`, {
      tool: entry.exposed,
    });
  }
  facts.approvalVia = 'elicitation';
  if (answer.action === 'accept' && answer.content?.approve === true) {
    facts.approver = userId;
    return true;
  }
  facts.result = 'require_approval';
  return new ToolCallRefused('policy_denied', `the user did not approve (${answer.action})`, {
    tool: entry.exposed,
  });
}
