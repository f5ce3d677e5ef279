/**
 * The AgentExecutor behind the governed server: it never decides anything. The gate has already
 * run the interchange node; the executor publishes that outcome — a reply as a Message, a round
 * that waits for a human as a task in TASK_STATE_INPUT_REQUIRED, a collected reply as the task
 * completed (or rejected, when the human declined) — and remembers which caller owns which task.
 */
import { Message, TaskState } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, type ServerCallContext } from '@a2a-js/sdk/server';
import { type Clock, newId } from '@agentgov/core';
import type { DeliveryResult } from '../transport';
import { GOVERNANCE_EXTENSION_URI, toWireMessage } from './wire';

export interface TaskBinding {
  owner: string;
  exchangeId: string;
  round: number;
}

export interface GovernedOutcome {
  result: DeliveryResult;
  owner: string;
  exchangeId: string;
  round: number;
}

export function governedExecutor(deps: {
  /** The gate's outcome for each request, keyed by that request's call context. */
  outcomes: WeakMap<ServerCallContext, GovernedOutcome>;
  tasks: Map<string, TaskBinding>;
  clock: Clock;
}): AgentExecutor {
  const { outcomes, tasks, clock } = deps;
  return {
    async execute(rc, bus) {
      const msg = rc.userMessage;
      const pending = outcomes.get(rc.context);
      outcomes.delete(rc.context);
      if (!pending) throw new Error('no governed outcome for this message');
      const { result, owner, exchangeId, round } = pending;
      const now = clock.now().toISOString();
      const replyMessage = (taskId: string): Message | undefined => {
        if (result.status !== 'answered' && result.status !== 'declined') return undefined;
        // The reply answers the round the gate bound this outcome to (same exchange, same round).
        return Message.fromJSON(
          toWireMessage({
            messageId: newId(),
            contextId: rc.contextId,
            ...(taskId ? { taskId } : {}),
            role: 'ROLE_AGENT',
            content: result.reply.message,
            metadata: {
              envelope: result.reply.jws,
              kind: 'reply',
              ...(exchangeId ? { exchangeId, round } : {}),
            },
          }),
        );
      };
      if (!rc.task && result.status === 'answered') {
        bus.publish(AgentEvent.message(replyMessage('') as Message));
        bus.finished();
        return;
      }
      const state =
        result.status === 'pending'
          ? TaskState.TASK_STATE_INPUT_REQUIRED
          : result.status === 'declined'
            ? TaskState.TASK_STATE_REJECTED
            : TaskState.TASK_STATE_COMPLETED;
      const statusMessage =
        replyMessage(rc.taskId) ??
        Message.fromJSON({
          messageId: newId(),
          contextId: rc.contextId,
          taskId: rc.taskId,
          role: 'ROLE_AGENT',
          parts: [
            { text: result.status === 'pending' ? `Waiting for a human: ${result.reason}` : 'Refused' },
          ],
        });
      tasks.set(rc.taskId, { owner, exchangeId, round });
      bus.publish(
        AgentEvent.task({
          id: rc.taskId,
          contextId: rc.contextId,
          status: { state, message: statusMessage, timestamp: now },
          artifacts: [],
          // The message as the gate handed it over (what the node accepted), once: the SDK has
          // already added it to a task it continues.
          history: rc.task?.history?.some((m) => m.messageId === msg.messageId)
            ? rc.task.history
            : [...(rc.task?.history ?? []), msg],
          metadata: { [GOVERNANCE_EXTENSION_URI]: { exchangeId, round } },
        }),
      );
      bus.finished();
    },
    async cancelTask(taskId, bus) {
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId: '',
          status: {
            state: TaskState.TASK_STATE_CANCELED,
            message: undefined,
            timestamp: clock.now().toISOString(),
          },
          metadata: undefined,
        }),
      );
      bus.finished();
    },
  };
}
