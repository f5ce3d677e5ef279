// The unified session timeline (spec: Timeline), a union discriminated by `kind`.
import type { Extra } from './common';

interface TimelineBase {
  timestamp: Date | null;
  extra: Extra;
}
export interface TimelineMessageEvent extends TimelineBase {
  kind: 'message';
  role: 'user' | 'assistant';
  model: string | null;
  preview: string;
  tokens: number;
}
export interface TimelineToolCallEvent extends TimelineBase {
  kind: 'tool_call';
  tool: string;
  success: boolean;
  durationMs: number;
  error: string;
}
export interface TimelineAgentSpawnEvent extends TimelineBase {
  kind: 'agent_spawn';
  agentType: string;
  description: string;
}
export interface TimelineCompactionEvent extends TimelineBase {
  kind: 'compaction';
  preTokens: number;
  postTokens: number;
  durationMs: number;
  triggerReason: string;
}
/** An event type this client does not know; `type` is the wire value. */
export interface TimelineOtherEvent extends TimelineBase {
  kind: 'other';
  type: string;
}
export type TimelineEvent =
  | TimelineMessageEvent
  | TimelineToolCallEvent
  | TimelineAgentSpawnEvent
  | TimelineCompactionEvent
  | TimelineOtherEvent;

export interface Timeline {
  durationSeconds: number;
  totalTokens: number;
  events: TimelineEvent[];
  extra: Extra;
}
