// Input schemas of messages, tool calls, subagents (spec: "Message, tool call, subagent") and search.
import { z } from 'zod';
import { limit, optionalText, pageShape, type Query, required } from './common';

const messageFilterShape = {
  sessionId: optionalText,
  /** The spec's two message types. */
  type: z.enum(['user', 'assistant'], { error: "must be 'user' or 'assistant'" }).optional(),
};
const toolCallFilterShape = { sessionId: optionalText, toolName: optionalText };
const subagentFilterShape = { sessionId: optionalText };

const messageQuery = (v: { sessionId?: string; type?: string; limit?: number; offset?: number }): Query => ({
  session_id: v.sessionId,
  type: v.type,
  limit: v.limit,
  offset: v.offset,
});
const toolCallQuery = (v: {
  sessionId?: string;
  toolName?: string;
  limit?: number;
  offset?: number;
}): Query => ({
  session_id: v.sessionId,
  tool_name: v.toolName,
  limit: v.limit,
  offset: v.offset,
});

export const messageFilter = z.strictObject(messageFilterShape).transform(messageQuery);
export const messageListParams = z
  .strictObject({ ...messageFilterShape, ...pageShape })
  .transform(messageQuery);
export const toolCallFilter = z.strictObject(toolCallFilterShape).transform(toolCallQuery);
export const toolCallListParams = z
  .strictObject({ ...toolCallFilterShape, ...pageShape })
  .transform(toolCallQuery);
export const subagentFilter = z.strictObject(subagentFilterShape).transform(messageQuery);
export const subagentListParams = z
  .strictObject({ ...subagentFilterShape, ...pageShape })
  .transform(messageQuery);

/** `GET /api/search`: `q` is required (SQLite FTS syntax), `limit` (server default 50); no offset. */
export const searchParams = z
  .strictObject({ q: required, limit: limit.optional() })
  .transform((v): Query => ({ q: v.q, limit: v.limit }));

export type MessageFilter = z.input<typeof messageFilter>;
export type ToolCallFilter = z.input<typeof toolCallFilter>;
export type SubagentFilter = z.input<typeof subagentFilter>;
export type SearchOptions = Omit<z.input<typeof searchParams>, 'q'>;
