// Messages, tool calls and subagents (spec: "Message, tool call, subagent").
import type { Extra } from './common';

export type MessageType = 'user' | 'assistant' | (string & {});

export interface Message {
  id: string;
  sessionId: string;
  parentId: string | null;
  type: MessageType;
  role: string | null;
  model: string | null;
  contentText: string;
  /** The raw content blocks as a JSON string (as stored by the server). */
  contentJson: string;
  stopReason: string | null;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  timestamp: Date | null;
  extra: Extra;
}

export interface ToolCall {
  id: string;
  messageId: string;
  sessionId: string;
  toolName: string;
  /** Tool input as a JSON string. */
  toolInput: string;
  toolResponse: string;
  success: boolean;
  error: string;
  durationMs: number;
  timestamp: Date | null;
  extra: Extra;
}

export interface Subagent {
  id: string;
  sessionId: string;
  agentType: string;
  description: string;
  startedAt: Date | null;
  endedAt: Date | null;
  extra: Extra;
}
