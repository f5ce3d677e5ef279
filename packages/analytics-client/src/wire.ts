/**
 * The wire format, in one place: zod schemas of what the real server sends (snake_case, wrapped
 * lists that may be `null`, `""` for missing values, comma-separated tags, `amount_usd`) and the
 * mappers to the public camelCase types. Schemas are `.loose()`: unknown fields pass validation and
 * end up in each record's `extra`.
 */
import { z } from 'zod';
import { parseTags } from './params';
import type * as T from './types';

// ---------- primitives ----------

/** A string that may be missing, `null` or `""` (nullable column); mapped to `string | null`. */
const optStr = z.string().nullish();
/** A string that may be missing; mapped to `''`. */
const text = z.string().nullish();
/** A number that may be missing (Go `omitempty`); mapped to 0. */
const num = z.number().nullish();
const bool = z.boolean().nullish();

const GO_ZERO_TIME = /^0001-01-01T00:00:00(\.0+)?Z$/;

/** A timestamp: RFC 3339, `""`, missing, or Go's zero time. */
const timestamp = z
  .string()
  .nullish()
  .refine((v) => !v || GO_ZERO_TIME.test(v) || !Number.isNaN(Date.parse(v)), {
    message: 'invalid timestamp',
  });

const list = <S extends z.ZodType>(item: S) => z.array(item).nullish();

function nz(v: string | null | undefined): string | null {
  return v === undefined || v === null || v === '' ? null : v;
}
function s(v: string | null | undefined): string {
  return v ?? '';
}
function n(v: number | null | undefined): number {
  return v ?? 0;
}
export function toDate(v: string | null | undefined): Date | null {
  if (!v || GO_ZERO_TIME.test(v)) return null;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? null : d;
}
function arr<A, B>(items: readonly A[] | null | undefined, map: (a: A) => B): B[] {
  return (items ?? []).map(map);
}

/** Wire fields the schema does not know, under their wire names. */
function extraOf(raw: Record<string, unknown>, schema: { shape: Record<string, unknown> }): T.Extra {
  const extra: T.Extra = {};
  for (const [key, value] of Object.entries(raw)) {
    if (!(key in schema.shape)) extra[key] = value;
  }
  return extra;
}

export function snakeToCamel(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}
export function camelToSnake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
function camelKeys<V>(record: Record<string, V> | null | undefined): Record<string, V> {
  const out: Record<string, V> = {};
  for (const [k, v] of Object.entries(record ?? {})) out[snakeToCamel(k)] = v;
  return out;
}

// ---------- sessions ----------

export const wireSession = z
  .object({
    id: z.string(),
    project_path: text,
    project_name: text,
    cwd: optStr,
    git_branch: optStr,
    started_at: timestamp,
    ended_at: timestamp,
    claude_version: optStr,
    entry_point: optStr,
    permission_mode: optStr,
    total_input_tokens: num,
    total_output_tokens: num,
    total_cache_read_tokens: num,
    total_cache_write_tokens: num,
    estimated_cost_usd: num,
    notes: text,
    tags: text,
  })
  .loose();

export function mapSession(w: z.infer<typeof wireSession>): T.Session {
  return {
    id: w.id,
    projectPath: s(w.project_path),
    projectName: s(w.project_name),
    cwd: nz(w.cwd),
    gitBranch: nz(w.git_branch),
    startedAt: toDate(w.started_at),
    endedAt: toDate(w.ended_at),
    claudeVersion: nz(w.claude_version),
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

export const wireSessionPage = z.object({ sessions: list(wireSession), total: num }).loose();
export function mapSessionPage(w: z.infer<typeof wireSessionPage>): T.SessionPage {
  const sessions = arr(w.sessions, mapSession);
  return { sessions, total: w.total ?? sessions.length };
}

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
export const wireMessageList = z.object({ messages: list(wireMessage) }).loose();
export const mapMessageList = (w: z.infer<typeof wireMessageList>): T.Message[] =>
  arr(w.messages, mapMessage);

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
export const wireToolCallList = z.object({ tool_calls: list(wireToolCall) }).loose();
export const mapToolCallList = (w: z.infer<typeof wireToolCallList>): T.ToolCall[] =>
  arr(w.tool_calls, mapToolCall);

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
export const wireSubagentList = z.object({ subagents: list(wireSubagent) }).loose();
export const mapSubagentList = (w: z.infer<typeof wireSubagentList>): T.Subagent[] =>
  arr(w.subagents, mapSubagent);

export const wireSessionDetail = z
  .object({
    session: wireSession,
    messages: list(wireMessage),
    tool_calls: list(wireToolCall),
    subagents: list(wireSubagent),
  })
  .loose();
export function mapSessionDetail(w: z.infer<typeof wireSessionDetail>): T.SessionDetail {
  return {
    session: mapSession(w.session),
    messages: arr(w.messages, mapMessage),
    toolCalls: arr(w.tool_calls, mapToolCall),
    subagents: arr(w.subagents, mapSubagent),
    extra: extraOf(w, wireSessionDetail),
  };
}

export const wirePatchResult = z.object({ id: z.string(), notes: text, tags: text }).loose();
export function mapPatchResult(w: z.infer<typeof wirePatchResult>): T.SessionPatchResult {
  return { id: w.id, notes: s(w.notes), tags: parseTags(w.tags), extra: extraOf(w, wirePatchResult) };
}

// ---------- timeline ----------

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

export const wireTimeline = z
  .object({ duration_seconds: num, total_tokens: num, events: list(wireTimelineEvent) })
  .loose();
export function mapTimeline(w: z.infer<typeof wireTimeline>): T.Timeline {
  return {
    durationSeconds: n(w.duration_seconds),
    totalTokens: n(w.total_tokens),
    events: arr(w.events, mapTimelineEvent),
    extra: extraOf(w, wireTimeline),
  };
}

export const wireCommit = z
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
export const wireCommitList = z.object({ commits: list(wireCommit) }).loose();
export const mapCommitList = (w: z.infer<typeof wireCommitList>): T.Commit[] =>
  arr(w.commits, (c) => ({
    hash: c.commit_hash,
    message: s(c.commit_message),
    author: s(c.author),
    filesChanged: n(c.files_changed),
    insertions: n(c.insertions),
    deletions: n(c.deletions),
    committedAt: toDate(c.committed_at),
    extra: extraOf(c, wireCommit),
  }));

// ---------- stats ----------

const wireTotals = z.object({ sessions: num, tool_calls: num, tokens: num, cost: num }).loose();
const mapTotals = (w: z.infer<typeof wireTotals> | null | undefined): T.UsageTotals => ({
  sessions: n(w?.sessions),
  toolCalls: n(w?.tool_calls),
  tokens: n(w?.tokens),
  cost: n(w?.cost),
});
export const wireStats = z
  .object({
    period_label: text,
    today: wireTotals.nullish(),
    total: wireTotals.nullish(),
    active_sessions: num,
  })
  .loose();
export function mapStats(w: z.infer<typeof wireStats>): T.Stats {
  return {
    periodLabel: s(w.period_label),
    period: mapTotals(w.today),
    total: mapTotals(w.total),
    activeSessions: n(w.active_sessions),
    extra: extraOf(w, wireStats),
  };
}

const wireDaily = z.object({ date: z.string(), sessions: num, tokens: num, cost: num }).loose();
export const wireDailyList = z.object({ days: list(wireDaily) }).loose();
export const mapDailyList = (w: z.infer<typeof wireDailyList>): T.DailyStat[] =>
  arr(w.days, (d) => ({
    date: d.date,
    sessions: n(d.sessions),
    tokens: n(d.tokens),
    cost: n(d.cost),
    extra: extraOf(d, wireDaily),
  }));

const wireToolStat = z.object({ name: z.string(), count: num, success_rate: num }).loose();
export const wireToolStats = z.object({ tools: list(wireToolStat) }).loose();
export const mapToolStats = (w: z.infer<typeof wireToolStats>): T.ToolStat[] =>
  arr(w.tools, (t) => ({
    name: t.name,
    count: n(t.count),
    successRate: n(t.success_rate),
    extra: extraOf(t, wireToolStat),
  }));

const wireModelStat = z.object({ name: z.string(), tokens: num, cost: num }).loose();
export const wireModelStats = z.object({ models: list(wireModelStat) }).loose();
export const mapModelStats = (w: z.infer<typeof wireModelStats>): T.ModelStat[] =>
  arr(w.models, (m) => ({
    name: m.name,
    tokens: n(m.tokens),
    cost: n(m.cost),
    extra: extraOf(m, wireModelStat),
  }));

const wireProjectStat = z.object({ name: text, path: z.string(), sessions: num, cost: num }).loose();
export const wireProjectStats = z.object({ projects: list(wireProjectStat) }).loose();
export const mapProjectStats = (w: z.infer<typeof wireProjectStats>): T.ProjectStat[] =>
  arr(w.projects, (p) => ({
    name: s(p.name),
    path: p.path,
    sessions: n(p.sessions),
    cost: n(p.cost),
    extra: extraOf(p, wireProjectStat),
  }));

const wireNamedCount = z.object({ name: z.string(), count: num }).loose();
const mapNamedCount = (c: z.infer<typeof wireNamedCount>): T.NamedCount => ({
  name: c.name,
  count: n(c.count),
  extra: extraOf(c, wireNamedCount),
});
export const wireSkillStats = z.object({ skills: list(wireNamedCount) }).loose();
export const mapSkillStats = (w: z.infer<typeof wireSkillStats>): T.NamedCount[] =>
  arr(w.skills, mapNamedCount);

const wireMcpServer = z.object({ name: z.string(), count: num, tools: list(wireNamedCount) }).loose();
const mapMcpServer = (m: z.infer<typeof wireMcpServer>): T.McpServerStat => ({
  name: m.name,
  count: n(m.count),
  tools: arr(m.tools, mapNamedCount),
  extra: extraOf(m, wireMcpServer),
});
export const wireMcpStats = z.object({ servers: list(wireMcpServer) }).loose();
export const mapMcpStats = (w: z.infer<typeof wireMcpStats>): T.McpServerStat[] =>
  arr(w.servers, mapMcpServer);

const wireToolError = z.object({ tool: z.string(), errors: num, total: num, rate: num }).loose();
const wireErrorTrend = z.object({ date: z.string(), errors: num, total: num }).loose();
export const wireErrorStats = z
  .object({
    total_errors: num,
    error_rate: num,
    errors_by_tool: list(wireToolError),
    common_errors: list(z.record(z.string(), z.unknown())),
    error_trend: list(wireErrorTrend),
  })
  .loose();
export function mapErrorStats(w: z.infer<typeof wireErrorStats>): T.ErrorStats {
  return {
    totalErrors: n(w.total_errors),
    errorRate: n(w.error_rate),
    errorsByTool: arr(w.errors_by_tool, (e) => ({
      tool: e.tool,
      errors: n(e.errors),
      total: n(e.total),
      rate: n(e.rate),
      extra: extraOf(e, wireToolError),
    })),
    commonErrors: arr(w.common_errors, (e) => ({ ...e })),
    errorTrend: arr(w.error_trend, (e) => ({
      date: e.date,
      errors: n(e.errors),
      total: n(e.total),
      extra: extraOf(e, wireErrorTrend),
    })),
    extra: extraOf(w, wireErrorStats),
  };
}

const wireModelEfficiency = z
  .object({ model: z.string(), avg_output_ratio: num, cache_hit_rate: num })
  .loose();
export const wireTokenEfficiency = z
  .object({
    avg_input_tokens_per_message: num,
    avg_output_tokens_per_message: num,
    avg_tokens_per_tool_call: num,
    cache_hit_rate: num,
    cache_savings_tokens: num,
    cache_savings_usd: num,
    efficiency_by_model: list(wireModelEfficiency),
  })
  .loose();
export function mapTokenEfficiency(w: z.infer<typeof wireTokenEfficiency>): T.TokenEfficiency {
  return {
    avgInputTokensPerMessage: n(w.avg_input_tokens_per_message),
    avgOutputTokensPerMessage: n(w.avg_output_tokens_per_message),
    avgTokensPerToolCall: n(w.avg_tokens_per_tool_call),
    cacheHitRate: n(w.cache_hit_rate),
    cacheSavingsTokens: n(w.cache_savings_tokens),
    cacheSavingsUsd: n(w.cache_savings_usd),
    efficiencyByModel: arr(w.efficiency_by_model, (m) => ({
      model: m.model,
      avgOutputRatio: n(m.avg_output_ratio),
      cacheHitRate: n(m.cache_hit_rate),
      extra: extraOf(m, wireModelEfficiency),
    })),
    extra: extraOf(w, wireTokenEfficiency),
  };
}

const wireCategory = z.object({ name: z.string(), count: num, percentage: num }).loose();
/** A trend row is `{date, <category>: count, ...}`: every other key is a category. */
const wireTrend = z.object({ date: z.string() }).catchall(z.number());
export const wirePromptPatterns = z
  .object({ categories: list(wireCategory), trends: list(wireTrend) })
  .loose();
export function mapPromptPatterns(w: z.infer<typeof wirePromptPatterns>): T.PromptPatterns {
  return {
    categories: arr(w.categories, (c) => ({
      name: c.name,
      count: n(c.count),
      percentage: n(c.percentage),
      extra: extraOf(c, wireCategory),
    })),
    trends: arr(w.trends, (t) => {
      const { date, ...counts } = t;
      return { date, counts: counts as Record<string, number> };
    }),
    extra: extraOf(w, wirePromptPatterns),
  };
}

const wireFileHeat = z.object({ path: z.string(), reads: num, writes: num, edits: num, total: num }).loose();
const wireDirHeat = z.object({ path: z.string(), total: num }).loose();
export const wireFileHeatmap = z
  .object({ files: list(wireFileHeat), directories: list(wireDirHeat) })
  .loose();
export function mapFileHeatmap(w: z.infer<typeof wireFileHeatmap>): T.FileHeatmap {
  return {
    files: arr(w.files, (f) => ({
      path: f.path,
      reads: n(f.reads),
      writes: n(f.writes),
      edits: n(f.edits),
      total: n(f.total),
      extra: extraOf(f, wireFileHeat),
    })),
    directories: arr(w.directories, (d) => ({
      path: d.path,
      total: n(d.total),
      extra: extraOf(d, wireDirHeat),
    })),
    extra: extraOf(w, wireFileHeatmap),
  };
}

const wireAgentCount = z.object({ agent_type: z.string(), count: num }).loose();
export const wireBreakdown = z
  .object({
    tools: list(wireNamedCount),
    skills: list(wireNamedCount),
    mcp_servers: list(wireMcpServer),
    agents: list(wireAgentCount),
  })
  .loose();
export function mapBreakdown(w: z.infer<typeof wireBreakdown>): T.Breakdown {
  return {
    tools: arr(w.tools, mapNamedCount),
    skills: arr(w.skills, mapNamedCount),
    mcpServers: arr(w.mcp_servers, mapMcpServer),
    agents: arr(w.agents, (a) => ({
      agentType: a.agent_type,
      count: n(a.count),
      extra: extraOf(a, wireAgentCount),
    })),
    extra: extraOf(w, wireBreakdown),
  };
}

const wirePoint = z.object({ date: z.string(), value: num }).loose();
const wireInsightMetric = z
  .object({
    current: num,
    previous: num,
    delta_pct: num,
    trend: text,
    series: list(wirePoint),
    previous_series: list(wirePoint),
  })
  .loose();
export const wireInsights = z
  .object({ period: text, from: text, to: text, metrics: z.record(z.string(), wireInsightMetric).nullish() })
  .loose();
export function mapInsights(w: z.infer<typeof wireInsights>): T.Insights {
  const metrics: Record<string, T.InsightMetric> = {};
  for (const [key, m] of Object.entries(w.metrics ?? {})) {
    metrics[snakeToCamel(key)] = {
      current: n(m.current),
      previous: n(m.previous),
      deltaPct: n(m.delta_pct),
      trend: s(m.trend),
      series: arr(m.series, (p) => ({ date: p.date, value: n(p.value) })),
      previousSeries: arr(m.previous_series, (p) => ({ date: p.date, value: n(p.value) })),
      extra: extraOf(m, wireInsightMetric),
    };
  }
  return { period: s(w.period), from: s(w.from), to: s(w.to), metrics, extra: extraOf(w, wireInsights) };
}

const wireActiveSession = z
  .object({
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
    last_activity: timestamp,
    recent_tool_calls: num,
  })
  .loose();
export const wireActiveSessions = z.object({ sessions: list(wireActiveSession) }).loose();
export const mapActiveSessions = (w: z.infer<typeof wireActiveSessions>): T.ActiveSession[] =>
  arr(w.sessions, (a) => ({
    id: a.id,
    projectPath: s(a.project_path),
    projectName: s(a.project_name),
    cwd: nz(a.cwd),
    gitBranch: nz(a.git_branch),
    startedAt: toDate(a.started_at),
    endedAt: toDate(a.ended_at),
    claudeVersion: nz(a.claude_version),
    totalInputTokens: n(a.total_input_tokens),
    totalOutputTokens: n(a.total_output_tokens),
    estimatedCostUsd: n(a.estimated_cost_usd),
    lastActivity: toDate(a.last_activity),
    recentToolCalls: n(a.recent_tool_calls),
    extra: extraOf(a, wireActiveSession),
  }));

const wireCompareSide = z
  .object({
    session: wireSession,
    metrics: z.record(z.string(), z.number()).nullish(),
    breakdown: wireBreakdown.nullish(),
    time_segments: z.record(z.string(), z.number()).nullish(),
  })
  .loose();
const wireDelta = z.object({ delta_pct: num, trend: text }).loose();
export const wireComparison = z
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
export function mapComparison(w: z.infer<typeof wireComparison>): T.SessionComparison {
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
}

// ---------- prompts ----------

const wirePrompt = z
  .object({
    id: z.string(),
    session_id: text,
    project_name: text,
    project_path: text,
    preview: text,
    truncated: bool,
    timestamp: timestamp,
  })
  .loose();
export const wirePromptPage = z.object({ prompts: list(wirePrompt), total: num }).loose();
export function mapPromptPage(w: z.infer<typeof wirePromptPage>): T.PromptPage {
  const prompts = arr(w.prompts, (p) => ({
    id: p.id,
    sessionId: s(p.session_id),
    projectName: s(p.project_name),
    projectPath: s(p.project_path),
    preview: s(p.preview),
    truncated: p.truncated ?? false,
    timestamp: toDate(p.timestamp),
    extra: extraOf(p, wirePrompt),
  }));
  return { prompts, total: w.total ?? prompts.length };
}

export const wirePromptDetail = z
  .object({
    id: z.string(),
    session_id: text,
    project_name: text,
    project_path: text,
    type: text,
    role: optStr,
    content_text: text,
    timestamp: timestamp,
    input_tokens: num,
    output_tokens: num,
    cache_read_tokens: num,
    cache_write_tokens: num,
    response_preview: z.string().optional(),
    response_model: optStr,
    response_output_tokens: num,
  })
  .loose();
export function mapPromptDetail(w: z.infer<typeof wirePromptDetail>): T.PromptDetail {
  return {
    id: w.id,
    sessionId: s(w.session_id),
    projectName: s(w.project_name),
    projectPath: s(w.project_path),
    type: s(w.type),
    role: nz(w.role),
    contentText: s(w.content_text),
    timestamp: toDate(w.timestamp),
    inputTokens: n(w.input_tokens),
    outputTokens: n(w.output_tokens),
    cacheReadTokens: n(w.cache_read_tokens),
    cacheWriteTokens: n(w.cache_write_tokens),
    response:
      w.response_preview === undefined
        ? null
        : {
            preview: w.response_preview,
            model: nz(w.response_model),
            outputTokens: n(w.response_output_tokens),
          },
    extra: extraOf(w, wirePromptDetail),
  };
}

// ---------- budgets ----------

export const wireBudget = z
  .object({
    id: z.number(),
    name: text,
    project_path: optStr,
    period: text,
    amount_usd: num,
    enabled: bool,
  })
  .loose();
export function mapBudget(w: z.infer<typeof wireBudget>): T.Budget {
  return {
    id: w.id,
    name: s(w.name),
    period: s(w.period),
    amountUsd: n(w.amount_usd),
    project: nz(w.project_path),
    enabled: w.enabled ?? false,
    extra: extraOf(w, wireBudget),
  };
}
export const wireBudgetList = z.object({ budgets: list(wireBudget) }).loose();
export const mapBudgetList = (w: z.infer<typeof wireBudgetList>): T.Budget[] => arr(w.budgets, mapBudget);

/** Public budget input -> wire body (`amount_usd`, `project_path`, `enabled`). */
export function budgetToWire(input: T.BudgetInput, withEnabled: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {
    name: input.name,
    project_path: input.project ?? '',
    period: input.period,
    amount_usd: input.amountUsd,
  };
  if (withEnabled) body.enabled = input.enabled ?? true;
  return body;
}

const wireBudgetStatus = z
  .object({
    id: z.number(),
    name: text,
    project_path: optStr,
    period: text,
    amount_usd: num,
    current_spend: num,
    percentage: num,
    status: text,
  })
  .loose();
export const wireBudgetStatusList = z.object({ budgets: list(wireBudgetStatus) }).loose();
export const mapBudgetStatusList = (w: z.infer<typeof wireBudgetStatusList>): T.BudgetStatus[] =>
  arr(w.budgets, (b) => ({
    id: b.id,
    name: s(b.name),
    period: s(b.period),
    amountUsd: n(b.amount_usd),
    project: nz(b.project_path),
    currentSpend: n(b.current_spend),
    percentage: n(b.percentage),
    status: s(b.status),
    extra: extraOf(b, wireBudgetStatus),
  }));

export const wireStatus = z.object({ status: z.string() }).loose();

// ---------- tags, git sync ----------

const wireTag = z.object({ tag: z.string(), count: num }).loose();
export const wireTagList = z.object({ tags: list(wireTag) }).loose();
export const mapTagList = (w: z.infer<typeof wireTagList>): T.Tag[] =>
  arr(w.tags, (t) => ({ name: t.tag, count: n(t.count), extra: extraOf(t, wireTag) }));

// ---------- export ----------

const wireExportedSession = z
  .object({ session: wireSession, messages: list(wireMessage), tool_calls: list(wireToolCall) })
  .loose();
export const wireExport = z.array(wireExportedSession);
export const mapExport = (w: z.infer<typeof wireExport>): T.ExportedSession[] =>
  w.map((e) => ({
    session: mapSession(e.session),
    messages: arr(e.messages, mapMessage),
    toolCalls: arr(e.tool_calls, mapToolCall),
    extra: extraOf(e, wireExportedSession),
  }));

// ---------- config ----------

export const wireConfig = z
  .object({
    server: z.object({ port: num, host: text }).loose().nullish(),
    capture: z
      .object({
        metadata: z.record(z.string(), z.boolean()).nullish(),
        events: z.record(z.string(), z.boolean()).nullish(),
      })
      .loose()
      .nullish(),
    storage: z.record(z.string(), z.unknown()).nullish(),
    cost: z
      .object({
        models: z
          .record(
            z.string(),
            z.object({ input: num, output: num, cache_read: num, cache_write: num }).loose(),
          )
          .nullish(),
      })
      .loose()
      .nullish(),
    ui: z.record(z.string(), z.unknown()).nullish(),
  })
  .loose();

/** Keys under these paths are map keys (names), not field names: never case-converted. */
const CONFIG_MAP_PATHS = new Set(['cost.models']);

function convertKeys(value: unknown, convert: (k: string) => string, path: string): unknown {
  if (Array.isArray(value)) return value.map((v) => convertKeys(v, convert, path));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  const isMap = CONFIG_MAP_PATHS.has(path);
  for (const [k, v] of Object.entries(value)) {
    // Path tracking uses the camelCase spelling so both directions agree.
    const camel = snakeToCamel(k);
    const childPath = isMap ? `${path}.*` : path ? `${path}.${camel}` : camel;
    out[isMap ? k : convert(k)] = convertKeys(v, convert, childPath);
  }
  return out;
}

export function mapConfig(w: z.infer<typeof wireConfig>): T.AnalyticsConfig {
  return convertKeys(w, snakeToCamel, '') as T.AnalyticsConfig;
}
export function configToWire(config: T.AnalyticsConfig): Record<string, unknown> {
  return convertKeys(config, camelToSnake, '') as Record<string, unknown>;
}

// ---------- errors ----------

export const wireError = z.object({ error: z.string() }).loose();
