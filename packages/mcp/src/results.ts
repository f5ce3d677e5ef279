/**
 * After the upstream answered: the result withheld when the assistant's model may not receive its
 * classification (the `models` policy), and for `notify` tools the notice recorded and the user
 * told (an MCP `notifications/message`).
 */
import type { Clock, DecisionEngine, ToolCallInbox } from '@agentgov/core';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type CallFacts, digestOf } from './facts';
import type { CallContext, GovernorWarning, ToolEntry, ToolSession } from './session';

/** The result, or a withheld notice when the assistant's model may not receive its classification. */
export async function filterResult(
  options: { engine: DecisionEngine; model?: { provider: string; model: string } },
  session: ToolSession,
  entry: ToolEntry,
  result: CallToolResult,
  facts: CallFacts,
): Promise<CallToolResult> {
  const model = options.model;
  if (!model) return result;
  const r = await options.engine
    .decide({
      domain: 'models',
      tenantId: session.identity.tenantId,
      userId: session.identity.userId,
      input: { provider: model.provider, model: model.model, classification_level: entry.classification },
    })
    .catch(() => undefined);
  const allowed = r?.isOk() && r.value.allow;
  if (allowed) return result;
  const why = r?.isOk() ? r.value.reason : 'the decision engine cannot answer';
  facts.withheld = `classification_exceeded: ${entry.classification} result for ${model.provider}/${model.model} (${why})`;
  return {
    content: [{ type: 'text', text: `Result withheld by governance: ${facts.withheld}` }],
    isError: true,
    _meta: {
      'agentgov.dev/withheld': {
        reason: 'classification_exceeded',
        classification: entry.classification,
        detail: why,
      },
    },
  };
}

/**
 * A `notify` tool ran: the notice is recorded and the assistant's user told. The call has gone
 * upstream and answered, so a notice that cannot be recorded (the inbox's store down) does not
 * undo it: the user is still told over MCP, and the failure goes to the call's audit entry
 * (`noticeUnrecorded`) and to `warn` — turning the call into an error would make the assistant's
 * natural retry run its side effect again.
 */
export async function notifyCall(
  inbox: ToolCallInbox,
  clock: Clock,
  session: ToolSession,
  entry: ToolEntry,
  facts: CallFacts,
  ctx: CallContext,
  warn: (warning: GovernorWarning) => void,
): Promise<void> {
  const { identity } = session;
  try {
    await inbox.notice(
      {
        tenantId: identity.tenantId,
        userId: identity.userId,
        tool: entry.exposed,
        upstream: entry.upstream.namespace,
        argumentsDigest: digestOf(facts) as string,
        outcome: facts.outcome === 'success' ? 'success' : 'error',
      },
      clock.now(),
    );
  } catch (error) {
    facts.noticeUnrecorded = error instanceof Error ? error.message : String(error);
    warn({
      upstream: entry.upstream.namespace,
      tool: entry.exposed,
      problem: `the notice of a notify call could not be recorded (the call stands): ${facts.noticeUnrecorded}`,
    });
  }
  await ctx
    .sendNotification?.({
      method: 'notifications/message',
      params: {
        level: 'notice',
        logger: 'agentgov',
        data: {
          notice: 'tool_called',
          tool: entry.exposed,
          userId: identity.userId,
          outcome: facts.outcome,
          argumentsDigest: digestOf(facts),
        },
      },
    })
    .catch(() => {});
}
