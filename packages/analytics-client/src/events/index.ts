// Real-time events from `/ws`: the public names of the event modules.
export type { EventStreamListeners } from './fanout';
export { parseEventFrame } from './parse';
export { type ReconnectOptions, reconnectDelay } from './reconnect';
export type { WebSocketConstructor, WebSocketLike } from './socket';
export { EventStream, type EventStreamOptions, type EventStreamState } from './stream';
export {
  type AnalyticsEvent,
  HOOK_EVENT_NAMES,
  type HookEvent,
  type HookEventName,
  type NotificationEvent,
  type PostToolUseEvent,
  type PreToolUseEvent,
  type SessionEndEvent,
  type SessionStartEvent,
  type StopEvent,
  type SubagentStartEvent,
  type SubagentStopEvent,
  type TaskCompleteEvent,
  type TaskStartEvent,
  type TaskUpdateEvent,
  type TranscriptEvent,
  type UnknownHookEvent,
} from './types';
