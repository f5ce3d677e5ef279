// Aggregate statistics (the spec's `/api/stats/*` endpoints).
import type { Extra } from './common';

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
