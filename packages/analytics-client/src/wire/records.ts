// Wire mapping of messages, tool calls and subagents (spec: "Message, tool call, subagent").
import { z } from 'zod';
import type * as T from '../types';
import { bool, extraOf, n, num, nz, optStr, s, text, timestamp, toDate, wrappedList } from './primitives';

export const wireMessage = z
  .object({
    id: z.string(),
    session_id: text,
    parent_id: optStr,
    type: text,
    role: optStr,
    model: optStr,
    content_text: text,
    content_json: text,
    stop_reason: optStr,
    input_tokens: num,
    output_tokens: num,
    cache_read_tokens: num,
    cache_write_tokens: num,
    timestamp: timestamp,
  })
  .loose();
export function mapMessage(w: z.infer<typeof wireMessage>): T.Message {
  return {
    id: w.id,
    sessionId: s(w.session_id),
    parentId: nz(w.parent_id),
    type: s(w.type),
    role: nz(w.role),
    model: nz(w.model),
    contentText: s(w.content_text),
    contentJson: s(w.content_json),
    stopReason: nz(w.stop_reason),
    inputTokens: n(w.input_tokens),
    outputTokens: n(w.output_tokens),
    cacheReadTokens: n(w.cache_read_tokens),
    cacheWriteTokens: n(w.cache_write_tokens),
    timestamp: toDate(w.timestamp),
    extra: extraOf(w, wireMessage),
  };
}
/** `GET /api/messages` and `GET /api/search`. */
export const messageList = wrappedList('messages', wireMessage, mapMessage);

export const wireToolCall = z
  .object({
    id: z.string(),
    message_id: text,
    session_id: text,
    tool_name: text,
    tool_input: text,
    tool_response: text,
    success: bool,
    error: text,
    duration_ms: num,
    timestamp: timestamp,
  })
  .loose();
export function mapToolCall(w: z.infer<typeof wireToolCall>): T.ToolCall {
  return {
    id: w.id,
    messageId: s(w.message_id),
    sessionId: s(w.session_id),
    toolName: s(w.tool_name),
    toolInput: s(w.tool_input),
    toolResponse: s(w.tool_response),
    success: w.success ?? false,
    error: s(w.error),
    durationMs: n(w.duration_ms),
    timestamp: toDate(w.timestamp),
    extra: extraOf(w, wireToolCall),
  };
}
export const toolCallList = wrappedList('tool_calls', wireToolCall, mapToolCall);

export const wireSubagent = z
  .object({
    id: z.string(),
    session_id: text,
    agent_type: text,
    description: text,
    started_at: timestamp,
    ended_at: timestamp,
  })
  .loose();
export function mapSubagent(w: z.infer<typeof wireSubagent>): T.Subagent {
  return {
    id: w.id,
    sessionId: s(w.session_id),
    agentType: s(w.agent_type),
    description: s(w.description),
    startedAt: toDate(w.started_at),
    endedAt: toDate(w.ended_at),
    extra: extraOf(w, wireSubagent),
  };
}
export const subagentList = wrappedList('subagents', wireSubagent, mapSubagent);
