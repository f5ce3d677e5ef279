/**
 * `SubscribeToTask` for a governed task, served by the gate (the SDK's own resubscription ends at
 * once: our executions finish as soon as a round is answered or paused). The stream (SSE, one
 * JSON-RPC response per event) opens with the task, then sends a `statusUpdate` whenever the task
 * changes state (completed or rejected once the initiator collected, canceled) or the exchange it
 * waits on moves on: the human `approved` or `rejected`, the reply is `reply_ready` to collect,
 * or the exchange ended (`expired`, `denied` by a cancel…). It ends when the task reaches a
 * terminal state, when nothing can be collected any more, when the caller goes away, or after
 * `maxMs`. The gate has already checked that the caller owns the task.
 */
import type http from 'node:http';
import { formatSSEEvent } from '@a2a-js/sdk';
import { type Clock, type Exchange, newId } from '@agentgov/core';
import { pendingApproval, replyOf } from '../record';
import type { TaskBinding } from './executor';
import { send } from './http-util';
import { GOVERNANCE_EXTENSION_URI } from './wire';

const TERMINAL = new Set([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
]);
const A2A_UNSUPPORTED_OPERATION = -32004;

interface TaskJson {
  id: string;
  contextId: string;
  status?: { state?: string; message?: unknown; timestamp?: string };
}

/** Where the exchange behind a task stands, for the initiator waiting on it. */
type ExchangeState = 'waiting' | 'approved' | 'rejected' | 'reply_ready' | Exchange['outcome'];

function stateOf(x: Exchange | undefined, round: number): ExchangeState | undefined {
  if (!x) return undefined;
  if (replyOf(x, round)) return 'reply_ready';
  const decision = pendingApproval(x)?.decision?.decision;
  if (decision) return decision;
  return x.outcome === 'in_progress' ? 'waiting' : x.outcome;
}

/** Nothing more can happen on the task: no reply to collect, and the exchange ended. */
const settled = (s: ExchangeState | undefined) =>
  s !== undefined && !['waiting', 'approved', 'rejected', 'reply_ready'].includes(s);

const TEXT: Record<string, string> = {
  approved: 'The human approved: collect the reply',
  rejected: 'The human declined: collect the answer',
  reply_ready: 'The reply is ready: collect it',
};

export async function subscribeToTask(deps: {
  res: http.ServerResponse;
  rpcId: unknown;
  taskId: string;
  binding: TaskBinding;
  /** The task as the SDK stores it now (GetTask through the SDK's handler). */
  readTask: () => Promise<{ result?: TaskJson; error?: unknown }>;
  /** The node's record of the exchange. */
  readExchange: (exchangeId: string) => Promise<Exchange | undefined>;
  clock: Clock;
  pollMs: number;
  maxMs: number;
  /** True once the server is closing. */
  closing: () => boolean;
}): Promise<void> {
  const { res, rpcId, binding, clock } = deps;
  const first = await deps.readTask();
  if (!first.result) return send(res, 200, { jsonrpc: '2.0', id: rpcId, ...first });
  let task = first.result;
  let state = task.status?.state ?? '';
  if (TERMINAL.has(state)) {
    return send(res, 200, {
      jsonrpc: '2.0',
      id: rpcId,
      error: {
        code: A2A_UNSUPPORTED_OPERATION,
        message: `Task ${deps.taskId} is in a terminal state and cannot be subscribed to`,
      },
    });
  }
  let gone = false;
  res.once('close', () => {
    gone = true;
  });
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const write = (result: unknown) => res.write(formatSSEEvent({ jsonrpc: '2.0', id: rpcId, result }));
  write({ task });
  let exchange = stateOf(await deps.readExchange(binding.exchangeId), binding.round);
  const meta = (s: ExchangeState | undefined) => ({
    [GOVERNANCE_EXTENSION_URI]: {
      exchangeId: binding.exchangeId,
      round: binding.round,
      state: s ?? 'unknown',
    },
  });
  const until = clock.now().getTime() + deps.maxMs;
  while (!gone && !deps.closing() && clock.now().getTime() < until) {
    if (TERMINAL.has(state) || settled(exchange)) break;
    await new Promise((r) => setTimeout(r, deps.pollMs));
    if (gone || deps.closing()) break;
    const now = (await deps.readTask()).result;
    const next = stateOf(await deps.readExchange(binding.exchangeId), binding.round);
    if (now && (now.status?.state ?? '') !== state) {
      task = now;
      state = now.status?.state ?? '';
      write({
        statusUpdate: {
          taskId: task.id,
          contextId: task.contextId,
          status: task.status,
          metadata: meta(next),
        },
      });
    } else if (next !== exchange) {
      write({
        statusUpdate: {
          taskId: task.id,
          contextId: task.contextId,
          status: {
            state,
            message: {
              messageId: newId(),
              contextId: task.contextId,
              taskId: task.id,
              role: 'ROLE_AGENT',
              parts: [{ text: TEXT[next ?? ''] ?? `The exchange is ${next}` }],
            },
            timestamp: clock.now().toISOString(),
          },
          metadata: meta(next),
        },
      });
    }
    exchange = next;
  }
  if (!gone) res.end();
}
