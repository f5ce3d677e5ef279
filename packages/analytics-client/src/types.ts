/**
 * Public types: camelCase, lists always arrays, missing values `null`, tags as arrays.
 *
 * Every mapped record carries `extra`: the wire fields this client does not know, under their
 * wire (snake_case) names, untouched. A newer server adding fields never breaks parsing, and the
 * data is still reachable. (Config is the exception: it is a free-form tree, see {@link AnalyticsConfig}.)
 */

export type Extra = Record<string, unknown>;

export interface Session {
  id: string;
  projectPath: string;
  projectName: string;
  cwd: string | null;
  gitBranch: string | null;
  /** `null` when the server has no start time (empty or Go zero time). */
  startedAt: Date | null;
  /** `null` while the session runs (wire: `""` in lists, omitted in detail). */
  endedAt: Date | null;
  claudeVersion: string | null;
  entryPoint: string | null;
  permissionMode: string | null;
  totalInputTokens: number;
  totalOutputTokens: number;
  totalCacheReadTokens: number;
  totalCacheWriteTokens: number;
  estimatedCostUsd: number;
  notes: string;
  /** Wire: comma-separated string. */
  tags: string[];
  extra: Extra;
}

export interface SessionPage {
  sessions: Session[];
  total: number;
}

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

export interface SessionDetail {
  session: Session;
  messages: Message[];
  toolCalls: ToolCall[];
  subagents: Subagent[];
  extra: Extra;
}

export interface SessionUpdate {
  notes?: string;
  /** Replaces all tags. Tags are trimmed; a tag may not contain a comma. */
  tags?: readonly string[];
}

export interface SessionPatchResult {
  id: string;
  notes: string;
  tags: string[];
  extra: Extra;
}

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

export interface Commit {
  hash: string;
  message: string;
  author: string;
  filesChanged: number;
  insertions: number;
  deletions: number;
  committedAt: Date | null;
  extra: Extra;
}

export interface UsageTotals {
  sessions: number;
  toolCalls: number;
  tokens: number;
  cost: number;
}

export interface Stats {
  /** `'today'` without filters, `'filtered'` when project/from/to was given. */
  periodLabel: 'today' | 'filtered' | (string & {});
  /** Today's (or the filter's) usage. Wire: `today`. */
  period: UsageTotals;
  total: UsageTotals;
  activeSessions: number;
  extra: Extra;
}

export interface DailyStat {
  /** `YYYY-MM-DD` (UTC day). */
  date: string;
  sessions: number;
  tokens: number;
  cost: number;
  extra: Extra;
}

export interface ToolStat {
  name: string;
  count: number;
  /** 0..1 */
  successRate: number;
  extra: Extra;
}

export interface ModelStat {
  name: string;
  tokens: number;
  cost: number;
  extra: Extra;
}

export interface ProjectStat {
  name: string;
  path: string;
  sessions: number;
  cost: number;
  extra: Extra;
}

export interface NamedCount {
  name: string;
  count: number;
  extra: Extra;
}

export interface McpServerStat {
  name: string;
  count: number;
  tools: NamedCount[];
  extra: Extra;
}

export interface ToolErrorStat {
  tool: string;
  errors: number;
  total: number;
  rate: number;
  extra: Extra;
}

export interface ErrorTrendPoint {
  date: string;
  errors: number;
  total: number;
  extra: Extra;
}

export interface ErrorStats {
  totalErrors: number;
  /** 0..1 */
  errorRate: number;
  errorsByTool: ToolErrorStat[];
  /** Shape not observed in recordings (always empty there): passed through as wire objects. */
  commonErrors: Array<Record<string, unknown>>;
  /** Last 30 days. */
  errorTrend: ErrorTrendPoint[];
  extra: Extra;
}

export interface ModelEfficiency {
  model: string;
  avgOutputRatio: number;
  cacheHitRate: number;
  extra: Extra;
}

export interface TokenEfficiency {
  avgInputTokensPerMessage: number;
  avgOutputTokensPerMessage: number;
  avgTokensPerToolCall: number;
  cacheHitRate: number;
  cacheSavingsTokens: number;
  cacheSavingsUsd: number;
  efficiencyByModel: ModelEfficiency[];
  extra: Extra;
}

export interface PromptCategory {
  name: string;
  count: number;
  /** 0..100 */
  percentage: number;
  extra: Extra;
}

export interface PromptTrend {
  date: string;
  /** Category name -> count for that day. */
  counts: Record<string, number>;
}

export interface PromptPatterns {
  categories: PromptCategory[];
  trends: PromptTrend[];
  extra: Extra;
}

export interface FileHeat {
  path: string;
  reads: number;
  writes: number;
  edits: number;
  total: number;
  extra: Extra;
}

export interface DirectoryHeat {
  path: string;
  total: number;
  extra: Extra;
}

export interface FileHeatmap {
  /** At most 50. */
  files: FileHeat[];
  /** At most 20. */
  directories: DirectoryHeat[];
  extra: Extra;
}

export interface AgentCount {
  agentType: string;
  count: number;
  extra: Extra;
}

export interface Breakdown {
  tools: NamedCount[];
  skills: NamedCount[];
  mcpServers: McpServerStat[];
  agents: AgentCount[];
  extra: Extra;
}

export type Trend = 'improving' | 'worsening' | 'stable' | 'neutral' | (string & {});

export interface SeriesPoint {
  date: string;
  value: number;
}

export interface InsightMetric {
  current: number;
  previous: number;
  deltaPct: number;
  trend: Trend;
  series: SeriesPoint[];
  previousSeries: SeriesPoint[];
  extra: Extra;
}

export interface Insights {
  period: string;
  from: string;
  to: string;
  /** Keyed by camelCased metric name, e.g. `avgCostPerSession`, `cacheHitRate`, `totalCost`. */
  metrics: Record<string, InsightMetric>;
  extra: Extra;
}

export interface ActiveSession {
  id: string;
  projectPath: string;
  projectName: string;
  cwd: string | null;
  gitBranch: string | null;
  startedAt: Date | null;
  endedAt: Date | null;
  claudeVersion: string | null;
  totalInputTokens: number;
  totalOutputTokens: number;
  estimatedCostUsd: number;
  lastActivity: Date | null;
  recentToolCalls: number;
  extra: Extra;
}

export interface CompareSide {
  session: Session;
  /** camelCased metric name -> value (`cost`, `totalTokens`, `cacheHitRate`, ...). */
  metrics: Record<string, number>;
  breakdown: Breakdown;
  /** camelCased segment -> percentage (`assistantPct`, `userInputPct`, ...). */
  timeSegments: Record<string, number>;
  extra: Extra;
}

export interface SessionComparison {
  sessionA: CompareSide;
  sessionB: CompareSide;
  deltas: Record<string, { deltaPct: number; trend: Trend }>;
  extra: Extra;
}

export interface Prompt {
  id: string;
  sessionId: string;
  projectName: string;
  projectPath: string;
  preview: string;
  truncated: boolean;
  timestamp: Date | null;
  extra: Extra;
}

export interface PromptPage {
  prompts: Prompt[];
  total: number;
}

export interface PromptDetail {
  id: string;
  sessionId: string;
  projectName: string;
  projectPath: string;
  type: MessageType;
  role: string | null;
  contentText: string;
  timestamp: Date | null;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** The next assistant message, when there is one. */
  response: { preview: string; model: string | null; outputTokens: number } | null;
  extra: Extra;
}

export type BudgetPeriod = 'daily' | 'weekly' | 'monthly';

export interface Budget {
  id: number;
  name: string;
  period: BudgetPeriod | (string & {});
  /** Wire: `amount_usd`. */
  amountUsd: number;
  /** Project path the budget is limited to; `null` = all projects (wire: `project_path: ""`). */
  project: string | null;
  enabled: boolean;
  extra: Extra;
}

export interface BudgetInput {
  name: string;
  period: BudgetPeriod;
  amountUsd: number;
  /** Project path filter; omit/`null`/`''` for all projects. */
  project?: string | null;
  /**
   * Update only: the server overwrites `enabled` on PUT, and treats a missing value as `false`.
   * The client therefore always sends it, defaulting to `true`. (Create always enables.)
   */
  enabled?: boolean;
}

export type BudgetState = 'ok' | 'warning' | 'exceeded';

export interface BudgetStatus {
  id: number;
  name: string;
  period: BudgetPeriod | (string & {});
  amountUsd: number;
  project: string | null;
  currentSpend: number;
  /** Percent used, 0..100+ (not a fraction). 0 when the amount is 0. */
  percentage: number;
  /** Server rule: `warning` from 80 %, `exceeded` from 100 %. */
  status: BudgetState | (string & {});
  extra: Extra;
}

export interface Tag {
  name: string;
  count: number;
  extra: Extra;
}

export interface GitSyncResult {
  status: 'syncing' | (string & {});
}

export interface ExportedSession {
  session: Session;
  messages: Message[];
  toolCalls: ToolCall[];
  extra: Extra;
}

export interface ModelPricing {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  [key: string]: unknown;
}

/**
 * Server configuration. The field list is not part of the spec; the known parts are typed, and the
 * whole tree is converted key-by-key between snake_case and camelCase (except the model names under
 * `cost.models`, which are map keys). Unknown fields appear camelCased in place and are sent back
 * snake_cased by {@link AnalyticsClient.saveConfig}.
 */
export interface AnalyticsConfig {
  server?: { port?: number; host?: string; [key: string]: unknown };
  capture?: {
    metadata?: Record<string, boolean>;
    events?: Record<string, boolean>;
    [key: string]: unknown;
  };
  storage?: {
    databasePath?: string;
    archivePath?: string;
    archiveEnabled?: boolean;
    retentionDays?: number;
    maxDbSizeMb?: number;
    [key: string]: unknown;
  };
  cost?: { models?: Record<string, ModelPricing>; [key: string]: unknown };
  ui?: { theme?: string; defaultPage?: string; sessionsPerPage?: number; [key: string]: unknown };
  [key: string]: unknown;
}
