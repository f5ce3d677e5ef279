/**
 * Real-time events from `/ws`: hook payloads (with `hook_event_name`) and raw transcript lines
 * (without it), as a typed discriminated union, consumable as an async iterator or via callbacks.
 */
export const HOOK_EVENT_NAMES = [
  'SessionStart',
  'SessionEnd',
  'Stop',
  'PreToolUse',
  'PostToolUse',
  'SubagentStart',
  'SubagentStop',
  'Notification',
  'TaskStart',
  'TaskComplete',
  'TaskUpdate',
] as const;
export type HookEventName = (typeof HOOK_EVENT_NAMES)[number];

interface HookBase<N extends HookEventName> {
  kind: 'hook';
  hookEventName: N;
  sessionId: string | null;
  cwd: string | null;
  transcriptPath: string | null;
  permissionMode: string | null;
  /** Payload fields not mapped above, under their wire names. */
  extra: Record<string, unknown>;
  /** The whole frame as received. */
  raw: Record<string, unknown>;
}
export interface SessionStartEvent extends HookBase<'SessionStart'> {
  source: string | null;
}
export interface SessionEndEvent extends HookBase<'SessionEnd'> {
  reason: string | null;
}
export interface StopEvent extends HookBase<'Stop'> {
  stopHookActive: boolean | null;
}
export interface PreToolUseEvent extends HookBase<'PreToolUse'> {
  toolName: string | null;
  toolInput: unknown;
  toolUseId: string | null;
}
export interface PostToolUseEvent extends HookBase<'PostToolUse'> {
  toolName: string | null;
  toolInput: unknown;
  toolResponse: unknown;
  toolUseId: string | null;
}
export interface SubagentStartEvent extends HookBase<'SubagentStart'> {
  agentId: string | null;
  agentType: string | null;
}
export interface SubagentStopEvent extends HookBase<'SubagentStop'> {
  agentId: string | null;
  agentType: string | null;
}
export interface NotificationEvent extends HookBase<'Notification'> {
  message: string | null;
}
export interface TaskStartEvent extends HookBase<'TaskStart'> {
  taskId: string | null;
}
export interface TaskCompleteEvent extends HookBase<'TaskComplete'> {
  taskId: string | null;
}
export interface TaskUpdateEvent extends HookBase<'TaskUpdate'> {
  taskId: string | null;
}

export type HookEvent =
  | SessionStartEvent
  | SessionEndEvent
  | StopEvent
  | PreToolUseEvent
  | PostToolUseEvent
  | SubagentStartEvent
  | SubagentStopEvent
  | NotificationEvent
  | TaskStartEvent
  | TaskCompleteEvent
  | TaskUpdateEvent;

/** A hook payload whose `hook_event_name` is not one of the spec's eleven values. */
export interface UnknownHookEvent {
  kind: 'unknown_hook';
  hookEventName: string;
  sessionId: string | null;
  raw: Record<string, unknown>;
}

/** A raw transcript line (the server tails transcript files and forwards appended lines). */
export interface TranscriptEvent {
  kind: 'transcript';
  /** `user`, `assistant`, `system`, ... */
  type: string | null;
  uuid: string | null;
  parentUuid: string | null;
  sessionId: string | null;
  timestamp: Date | null;
  /** The `message` object of the line (role, content, usage, ...), if any. */
  message: unknown;
  raw: Record<string, unknown>;
}

export type AnalyticsEvent = HookEvent | UnknownHookEvent | TranscriptEvent;
