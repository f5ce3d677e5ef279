// Wire mapping of sessions (spec: Session, Tag): list pages, detail, PATCH result, linked commits,
// tags, and the server's extensions `/api/sessions/compare` and `/api/stats/active-sessions`.
import { z } from 'zod';
import { parseTags } from '../params';
import type * as T from '../types';
import {
  arr,
  camelKeys,
  decoder,
  extraOf,
  list,
  n,
  num,
  nz,
  optStr,
  s,
  snakeToCamel,
  text,
  timestamp,
  toDate,
  wrappedList,
} from './primitives';
import { mapMessage, mapSubagent, mapToolCall, wireMessage, wireSubagent, wireToolCall } from './records';
import { mapBreakdown, wireBreakdown } from './stats-tools';

/** Columns of a session row that both the session endpoints and `/api/stats/active-sessions` send. */
const sessionRow = {
  id: z.string(),
  project_path: text,
  project_name: text,
  cwd: optStr,
  git_branch: optStr,
  started_at: timestamp,
  ended_at: timestamp,
  claude_version: optStr,
  total_input_tokens: num,
  total_output_tokens: num,
  estimated_cost_usd: num,
};

/** The leading fields `Session` and `ActiveSession` share, in their order. */
function mapSessionRow(w: z.infer<z.ZodObject<typeof sessionRow>>) {
  return {
    id: w.id,
    projectPath: s(w.project_path),
    projectName: s(w.project_name),
    cwd: nz(w.cwd),
    gitBranch: nz(w.git_branch),
    startedAt: toDate(w.started_at),
    endedAt: toDate(w.ended_at),
    claudeVersion: nz(w.claude_version),
  };
}

export const wireSession = z
  .object({
    ...sessionRow,
    entry_point: optStr,
    permission_mode: optStr,
    total_cache_read_tokens: num,
    total_cache_write_tokens: num,
    notes: text,
    tags: text,
  })
  .loose();

export function mapSession(w: z.infer<typeof wireSession>): T.Session {
  return {
    ...mapSessionRow(w),
    entryPoint: nz(w.entry_point),
    permissionMode: nz(w.permission_mode),
    totalInputTokens: n(w.total_input_tokens),
    totalOutputTokens: n(w.total_output_tokens),
    totalCacheReadTokens: n(w.total_cache_read_tokens),
    totalCacheWriteTokens: n(w.total_cache_write_tokens),
    estimatedCostUsd: n(w.estimated_cost_usd),
    notes: s(w.notes),
    tags: parseTags(w.tags),
    extra: extraOf(w, wireSession),
  };
}

export const sessionPage = decoder(
  z.object({ sessions: list(wireSession), total: num }).loose(),
  (w): T.SessionPage => {
    const sessions = arr(w.sessions, mapSession);
    // Only what the server reported: a count made up from this page would end iteration early.
    return { sessions, total: w.total ?? undefined };
  },
);

const wireSessionDetail = z
  .object({
    session: wireSession,
    messages: list(wireMessage),
    tool_calls: list(wireToolCall),
    subagents: list(wireSubagent),
  })
  .loose();
export const sessionDetail = decoder(
  wireSessionDetail,
  (w): T.SessionDetail => ({
    session: mapSession(w.session),
    messages: arr(w.messages, mapMessage),
    toolCalls: arr(w.tool_calls, mapToolCall),
    subagents: arr(w.subagents, mapSubagent),
    extra: extraOf(w, wireSessionDetail),
  }),
);

const wirePatchResult = z.object({ id: z.string(), notes: text, tags: text }).loose();
export const patchResult = decoder(
  wirePatchResult,
  (w): T.SessionPatchResult => ({
    id: w.id,
    notes: s(w.notes),
    tags: parseTags(w.tags),
    extra: extraOf(w, wirePatchResult),
  }),
);

const wireCommit = z
  .object({
    commit_hash: z.string(),
    commit_message: text,
    author: text,
    files_changed: num,
    insertions: num,
    deletions: num,
    committed_at: timestamp,
  })
  .loose();
export const commitList = wrappedList(
  'commits',
  wireCommit,
  (c): T.Commit => ({
    hash: c.commit_hash,
    message: s(c.commit_message),
    author: s(c.author),
    filesChanged: n(c.files_changed),
    insertions: n(c.insertions),
    deletions: n(c.deletions),
    committedAt: toDate(c.committed_at),
    extra: extraOf(c, wireCommit),
  }),
);

const wireTag = z.object({ tag: z.string(), count: num }).loose();
export const tagList = wrappedList(
  'tags',
  wireTag,
  (t): T.Tag => ({ name: t.tag, count: n(t.count), extra: extraOf(t, wireTag) }),
);

const wireActiveSession = z
  .object({ ...sessionRow, last_activity: timestamp, recent_tool_calls: num })
  .loose();
export const activeSessions = wrappedList(
  'sessions',
  wireActiveSession,
  (a): T.ActiveSession => ({
    ...mapSessionRow(a),
    totalInputTokens: n(a.total_input_tokens),
    totalOutputTokens: n(a.total_output_tokens),
    estimatedCostUsd: n(a.estimated_cost_usd),
    lastActivity: toDate(a.last_activity),
    recentToolCalls: n(a.recent_tool_calls),
    extra: extraOf(a, wireActiveSession),
  }),
);

const wireCompareSide = z
  .object({
    session: wireSession,
    metrics: z.record(z.string(), z.number()).nullish(),
    breakdown: wireBreakdown.nullish(),
    time_segments: z.record(z.string(), z.number()).nullish(),
  })
  .loose();
const wireDelta = z.object({ delta_pct: num, trend: text }).loose();
const wireComparison = z
  .object({
    session_a: wireCompareSide,
    session_b: wireCompareSide,
    deltas: z.record(z.string(), wireDelta).nullish(),
  })
  .loose();
function mapCompareSide(w: z.infer<typeof wireCompareSide>): T.CompareSide {
  return {
    session: mapSession(w.session),
    metrics: camelKeys(w.metrics),
    breakdown: mapBreakdown(w.breakdown ?? {}),
    timeSegments: camelKeys(w.time_segments),
    extra: extraOf(w, wireCompareSide),
  };
}
export const comparison = decoder(wireComparison, (w): T.SessionComparison => {
  const deltas: T.SessionComparison['deltas'] = {};
  for (const [k, d] of Object.entries(w.deltas ?? {})) {
    deltas[snakeToCamel(k)] = { deltaPct: n(d.delta_pct), trend: s(d.trend) };
  }
  return {
    sessionA: mapCompareSide(w.session_a),
    sessionB: mapCompareSide(w.session_b),
    deltas,
    extra: extraOf(w, wireComparison),
  };
});
