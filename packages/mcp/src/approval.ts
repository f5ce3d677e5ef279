/**
 * The `approve` autonomy: a call goes ahead with a human's approval of this call with these
 * arguments — a granted approval in the inbox (single use, bound to the user, the tool and the
 * argument digest), else MCP elicitation to the assistant's user when the client supports it, else
 * a pending approval a human decides through the governance service.
 */
import type { Clock, ToolCallInbox } from '@agentgov/core';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { ToolCallRefused } from './errors';
import { type CallFacts, digestOf } from './facts';
import type { CallContext, ToolEntry, ToolSession } from './session';

export interface ApprovalDeps {
  inbox: ToolCallInbox;
  clock: Clock;
  approvalTtlMs: number;
}

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
  const granted = await deps.inbox.consume(key, deps.clock.now());
  if (granted) {
    facts.approver = granted.decidedBy ?? identity.userId;
    facts.approvalId = granted.id;
    facts.approvalVia = 'inbox';
    facts.result = 'allow';
    return true;
  }
  if (ctx.elicit) return elicited(ctx, identity.userId, entry, facts);
  const pending = await deps.inbox.request(
    {
      ...key,
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

/** Asks the assistant's user (MCP elicitation, a form with one boolean). */
async function elicited(
  ctx: CallContext,
  userId: string,
  entry: ToolEntry,
  facts: CallFacts,
): Promise<true | ToolCallRefused> {
  let answer: ElicitResult;
  try {
    // Called on the context: its `elicit` may be a method.
    answer = await (ctx.elicit as NonNullable<CallContext['elicit']>).call(ctx, {
      mode: 'form',
      message:
        `Approve this call of ${entry.exposed}? (${facts.reason})\n` +
        `Arguments (canonical JSON): ${truncate(facts.canonical ?? '{}', 2000)}`,
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

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}
