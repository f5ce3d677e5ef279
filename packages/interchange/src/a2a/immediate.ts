/**
 * A query the node answered at once (`SendMessage`, no task, no configuration), answered by the
 * gate itself instead of through the SDK's request handler. For such a request the SDK only
 * copies the request (RequestContext), runs the executor on an event bus, copies the reply message
 * the executor publishes (`structuredClone`) and serializes it (`Message.toJSON`): nothing is kept
 * (no task is made for a message) and the answer is the executor's reply message as JSON. This
 * builds that same JSON-RPC response directly — byte for byte what the SDK answers
 * (test/immediate.test.ts compares both on arbitrary replies and ids).
 *
 * Accept-only: anything else — SendStreamingMessage, a configuration, a task, a pending or
 * declined round, a JSON-RPC id the SDK would refuse, a reply that is not plain JSON data (where
 * `structuredClone` and JSON could differ) — returns undefined and takes the SDK's path.
 */
import { newId } from '@agentgov/core';
import { MAX_DEPTH } from '../json-depth';
import type { GovernedOutcome } from './executor';
import { toWireMessage, type WireMessage } from './wire';

/** Deeper replies take the SDK's path. */

/** Plain JSON data: strings, finite numbers, booleans, null, arrays and plain (or null-prototype) objects of them, no `__proto__` key. */
export function isPlainJson(value: unknown, depth = 0): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object': {
      if (value === null) return true;
      if (depth >= MAX_DEPTH) return false;
      if (Array.isArray(value)) {
        if (Object.getPrototypeOf(value) !== Array.prototype) return false;
        for (let i = 0; i < value.length; i++) if (!isPlainJson(value[i], depth + 1)) return false;
        return true;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return false;
      for (const key in value) {
        if (!Object.hasOwn(value, key) || key === '__proto__') return false;
        if (!isPlainJson((value as Record<string, unknown>)[key], depth + 1)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

/** A JSON-RPC id the SDK's transport accepts (string, integer, null, or none). */
const isValidId = (id: unknown): boolean =>
  id === undefined || id === null || typeof id === 'string' || Number.isInteger(id);

/**
 * The JSON-RPC response to a SendMessage the node answered at once, as the SDK would answer it;
 * undefined when the request or its outcome is anything else (the SDK's path then runs).
 */
export function immediateAnswer(input: {
  method: string;
  /** The request's `id`, as sent. */
  id: unknown;
  /** The request's `params.configuration`, as sent. */
  rawConfiguration: unknown;
  wire: WireMessage;
  outcome: GovernedOutcome;
}): { jsonrpc: '2.0'; id: unknown; result: { message: Record<string, unknown> } } | undefined {
  const { wire, outcome } = input;
  const result = outcome.result;
  if (
    input.method !== 'SendMessage' ||
    input.rawConfiguration !== undefined ||
    !isValidId(input.id) ||
    result.status !== 'answered' ||
    wire.metadata.kind !== 'query' ||
    wire.taskId !== '' ||
    wire.contextId === '' ||
    !outcome.exchangeId ||
    typeof result.reply.jws !== 'string' ||
    !isPlainJson(result.reply.message)
  )
    return undefined;
  return {
    jsonrpc: '2.0',
    id: input.id ?? null,
    result: {
      message: toWireMessage({
        messageId: newId(),
        contextId: wire.contextId,
        role: 'ROLE_AGENT',
        content: result.reply.message,
        metadata: {
          envelope: result.reply.jws,
          kind: 'reply',
          exchangeId: outcome.exchangeId,
          round: outcome.round,
        },
      }),
    },
  };
}
