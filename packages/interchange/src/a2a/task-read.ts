/**
 * The gate's check of a read method on one task (GetTask, SubscribeToTask, CancelTask): the id is
 * a string, the task is the caller's own (another caller's is "not found", as an absent one), and
 * a CancelTask withdraws the round the task waits on first (denied, `cancelled by …`; its pending
 * approval becomes unusable; a round already answered is not cancelable).
 */
import { newId } from '@agentgov/core';
import type { InterchangeNode } from '../node';
import type { Caller } from './caller';
import type { TaskBinding } from './executor';
import { GOVERNANCE_ERRORS as E, type JsonRpcError, rpcError } from './wire';

/** The A2A spec's TaskNotFoundError and TaskNotCancelableError. */
const A2A_TASK_NOT_FOUND = -32001;
const A2A_TASK_NOT_CANCELABLE = -32002;

/** The JSON-RPC error refusing the read, or undefined when it may go on to the SDK. */
export async function checkTaskRead(o: {
  node: InterchangeNode;
  tasks: ReadonlyMap<string, TaskBinding>;
  method: string;
  params: Record<string, unknown>;
  owner: string;
  caller: Caller;
}): Promise<JsonRpcError | { code: number; message: string } | undefined> {
  if (typeof o.params.id !== 'string')
    return { code: -32602, message: 'Invalid params: id must be a string' };
  const bound = o.tasks.get(o.params.id);
  if (bound?.owner !== o.owner) return { code: A2A_TASK_NOT_FOUND, message: 'Task not found' };
  if (o.method !== 'CancelTask') return undefined;
  const r = await o.node.cancelWaiting({
    exchangeId: bound.exchangeId,
    round: bound.round,
    by: o.caller,
    requestId: newId(),
  });
  if (r.isOk()) return undefined;
  const reason = (r.error.detail as { reason?: string } | undefined)?.reason;
  if (reason === 'already_answered')
    return { code: A2A_TASK_NOT_CANCELABLE, message: 'Task cannot be canceled' };
  return rpcError(E.refused, r.error.message, reason ?? r.error.code, { error: r.error.toBody() });
}
