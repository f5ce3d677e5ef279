// Parsing of `/ws` frames: the message data (text, binary, or `ws` fragments) to text, the text to
// JSON, and the JSON object to a typed event (a hook payload iff it has a string `hook_event_name`).
import { toDate } from '../wire/primitives';
import { type AnalyticsEvent, HOOK_EVENT_NAMES, type HookEventName } from './types';

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

const BASE_KEYS = ['hook_event_name', 'session_id', 'cwd', 'transcript_path', 'permission_mode'];
const HOOK_KEYS: Record<HookEventName, readonly string[]> = {
  SessionStart: ['source'],
  SessionEnd: ['reason'],
  Stop: ['stop_hook_active'],
  PreToolUse: ['tool_name', 'tool_input', 'tool_use_id'],
  PostToolUse: ['tool_name', 'tool_input', 'tool_response', 'tool_use_id'],
  SubagentStart: ['agent_id', 'agent_type'],
  SubagentStop: ['agent_id', 'agent_type'],
  Notification: ['message'],
  TaskStart: ['task_id'],
  TaskComplete: ['task_id'],
  TaskUpdate: ['task_id'],
};

function isHookName(name: string): name is HookEventName {
  return (HOOK_EVENT_NAMES as readonly string[]).includes(name);
}

/**
 * Maps one decoded frame. Returns `undefined` for values that are not JSON objects.
 * A frame is a hook event iff it has a string `hook_event_name`.
 */
export function parseEventFrame(frame: unknown): AnalyticsEvent | undefined {
  if (frame === null || typeof frame !== 'object' || Array.isArray(frame)) return undefined;
  const raw = frame as Record<string, unknown>;
  const name = raw.hook_event_name;
  if (typeof name !== 'string') {
    return {
      kind: 'transcript',
      type: str(raw.type),
      uuid: str(raw.uuid),
      parentUuid: str(raw.parentUuid),
      sessionId: str(raw.sessionId) ?? str(raw.session_id),
      timestamp: typeof raw.timestamp === 'string' ? toDate(raw.timestamp) : null,
      message: raw.message,
      raw,
    };
  }
  if (!isHookName(name))
    return { kind: 'unknown_hook', hookEventName: name, sessionId: str(raw.session_id), raw };
  const known = new Set([...BASE_KEYS, ...HOOK_KEYS[name]]);
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) if (!known.has(k)) extra[k] = v;
  const base = {
    kind: 'hook' as const,
    sessionId: str(raw.session_id),
    cwd: str(raw.cwd),
    transcriptPath: str(raw.transcript_path),
    permissionMode: str(raw.permission_mode),
    extra,
    raw,
  };
  switch (name) {
    case 'SessionStart':
      return { ...base, hookEventName: name, source: str(raw.source) };
    case 'SessionEnd':
      return { ...base, hookEventName: name, reason: str(raw.reason) };
    case 'Stop':
      return {
        ...base,
        hookEventName: name,
        stopHookActive: typeof raw.stop_hook_active === 'boolean' ? raw.stop_hook_active : null,
      };
    case 'PreToolUse':
      return {
        ...base,
        hookEventName: name,
        toolName: str(raw.tool_name),
        toolInput: raw.tool_input,
        toolUseId: str(raw.tool_use_id),
      };
    case 'PostToolUse':
      return {
        ...base,
        hookEventName: name,
        toolName: str(raw.tool_name),
        toolInput: raw.tool_input,
        toolResponse: raw.tool_response,
        toolUseId: str(raw.tool_use_id),
      };
    case 'SubagentStart':
    case 'SubagentStop':
      return { ...base, hookEventName: name, agentId: str(raw.agent_id), agentType: str(raw.agent_type) };
    case 'Notification':
      return { ...base, hookEventName: name, message: str(raw.message) };
    case 'TaskStart':
    case 'TaskComplete':
    case 'TaskUpdate':
      return { ...base, hookEventName: name, taskId: str(raw.task_id) };
  }
}

/** Message data as text: a string, UTF-8 bytes, or `ws` fragments; `undefined` for anything else. */
function decodeFrameData(data: unknown): string | undefined {
  if (typeof data === 'string') return data;
  if (data instanceof ArrayBuffer) return new TextDecoder().decode(data);
  if (ArrayBuffer.isView(data)) return new TextDecoder().decode(data);
  if (Array.isArray(data)) {
    // `ws` fragments (Buffer[])
    return data.map((d) => decodeFrameData(d) ?? '').join('');
  }
  return undefined;
}

/** One WebSocket message -> its event, or why it is not one (with the frame's text, if it had any). */
export function readFrame(
  data: unknown,
): { event: AnalyticsEvent } | { error: unknown; text: string | undefined } {
  const text = decodeFrameData(data);
  let parsed: unknown;
  try {
    if (text === undefined) throw new TypeError('unsupported frame type');
    parsed = JSON.parse(text);
  } catch (error) {
    return { error, text };
  }
  const event = parseEventFrame(parsed);
  return event ? { event } : { error: new TypeError('frame is not a JSON object'), text };
}
