// Wire mapping of the unified session timeline (spec: Timeline): each wire event type becomes one
// `kind` of the public union; only the fields of an event's own type count as known.
import { z } from 'zod';
import type * as T from '../types';
import {
  arr,
  bool,
  decoder,
  extraOf,
  list,
  n,
  num,
  nz,
  optStr,
  s,
  text,
  timestamp,
  toDate,
} from './primitives';

const wireTimelineEvent = z
  .object({
    type: z.string(),
    timestamp: timestamp,
    model: optStr,
    preview: text,
    tokens: num,
    tool: text,
    success: bool,
    duration_ms: num,
    error: text,
    agent_type: text,
    description: text,
    pre_tokens: num,
    post_tokens: num,
    trigger_reason: text,
  })
  .loose();

/** Only the fields that belong to an event's type count as known; the rest go to `extra`. */
const TIMELINE_FIELDS: Record<string, readonly string[]> = {
  user_message: ['model', 'preview', 'tokens'],
  assistant_message: ['model', 'preview', 'tokens'],
  tool_call: ['tool', 'success', 'duration_ms', 'error'],
  agent_spawn: ['agent_type', 'description'],
  compaction: ['pre_tokens', 'post_tokens', 'duration_ms', 'trigger_reason'],
};

function mapTimelineEvent(w: z.infer<typeof wireTimelineEvent>): T.TimelineEvent {
  const own = TIMELINE_FIELDS[w.type] ?? [];
  const extra: T.Extra = {};
  for (const [k, v] of Object.entries(w)) {
    if (k !== 'type' && k !== 'timestamp' && !own.includes(k)) extra[k] = v;
  }
  const base = { timestamp: toDate(w.timestamp), extra };
  switch (w.type) {
    case 'user_message':
    case 'assistant_message':
      return {
        kind: 'message',
        role: w.type === 'user_message' ? 'user' : 'assistant',
        model: nz(w.model),
        preview: s(w.preview),
        tokens: n(w.tokens),
        ...base,
      };
    case 'tool_call':
      return {
        kind: 'tool_call',
        tool: s(w.tool),
        success: w.success ?? false,
        durationMs: n(w.duration_ms),
        error: s(w.error),
        ...base,
      };
    case 'agent_spawn':
      return { kind: 'agent_spawn', agentType: s(w.agent_type), description: s(w.description), ...base };
    case 'compaction':
      return {
        kind: 'compaction',
        preTokens: n(w.pre_tokens),
        postTokens: n(w.post_tokens),
        durationMs: n(w.duration_ms),
        triggerReason: s(w.trigger_reason),
        ...base,
      };
    default:
      return { kind: 'other', type: w.type, ...base };
  }
}

const wireTimeline = z
  .object({ duration_seconds: num, total_tokens: num, events: list(wireTimelineEvent) })
  .loose();
export const timeline = decoder(
  wireTimeline,
  (w): T.Timeline => ({
    durationSeconds: n(w.duration_seconds),
    totalTokens: n(w.total_tokens),
    events: arr(w.events, mapTimelineEvent),
    extra: extraOf(w, wireTimeline),
  }),
);
