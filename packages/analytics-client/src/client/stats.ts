// Aggregate statistics (the spec's `/api/stats/*` endpoints, plus the server's insights and active
// sessions): usage and costs, tools, skills, MCP servers, errors, files, breakdowns.
import {
  type DailyStatsParams,
  dailyParams,
  type FileHeatmapParams,
  fileHeatmapParams,
  type InsightsFilter,
  insightsFilter,
  projectBreakdownParams,
  type StatsFilter,
  sessionBreakdownParams,
  statsFilter,
} from '../input/stats';
import type * as T from '../types';
import { activeSessions } from '../wire/sessions';
import { breakdown, errorStats, fileHeatmap, mcpStats, skillStats, toolStats } from '../wire/stats-tools';
import {
  dailyList,
  insights,
  modelStats,
  projectStats,
  promptPatterns,
  stats,
  tokenEfficiency,
} from '../wire/stats-usage';
import { ClientCore } from './core';
import type { CallOptions } from './options';

export abstract class StatsApi extends ClientCore {
  /** GET /api/stats: today's (or the filter's) usage, all-time totals, active session count. */
  async getStats(filter: StatsFilter = {}, options?: CallOptions): Promise<T.Stats> {
    const query = this.input(statsFilter, filter, 'GET /api/stats');
    return this.call({ method: 'GET', path: '/api/stats', query }, stats, options);
  }

  /** GET /api/stats/daily: one row per UTC day with activity, oldest first (default 90 days). */
  async getDailyStats(params: DailyStatsParams = {}, options?: CallOptions): Promise<T.DailyStat[]> {
    const query = this.input(dailyParams, params, 'GET /api/stats/daily');
    return this.call({ method: 'GET', path: '/api/stats/daily', query }, dailyList, options);
  }

  async getToolStats(options?: CallOptions): Promise<T.ToolStat[]> {
    return this.call({ method: 'GET', path: '/api/stats/tools' }, toolStats, options);
  }

  async getModelStats(options?: CallOptions): Promise<T.ModelStat[]> {
    return this.call({ method: 'GET', path: '/api/stats/models' }, modelStats, options);
  }

  async getProjectStats(options?: CallOptions): Promise<T.ProjectStat[]> {
    return this.call({ method: 'GET', path: '/api/stats/projects' }, projectStats, options);
  }

  async getSkillStats(options?: CallOptions): Promise<T.NamedCount[]> {
    return this.call({ method: 'GET', path: '/api/stats/skills' }, skillStats, options);
  }

  async getMcpStats(options?: CallOptions): Promise<T.McpServerStat[]> {
    return this.call({ method: 'GET', path: '/api/stats/mcp' }, mcpStats, options);
  }

  async getErrorStats(filter: StatsFilter = {}, options?: CallOptions): Promise<T.ErrorStats> {
    const query = this.input(statsFilter, filter, 'GET /api/stats/errors');
    return this.call({ method: 'GET', path: '/api/stats/errors', query }, errorStats, options);
  }

  async getTokenEfficiency(options?: CallOptions): Promise<T.TokenEfficiency> {
    return this.call({ method: 'GET', path: '/api/stats/token-efficiency' }, tokenEfficiency, options);
  }

  async getPromptPatterns(options?: CallOptions): Promise<T.PromptPatterns> {
    return this.call({ method: 'GET', path: '/api/stats/prompt-patterns' }, promptPatterns, options);
  }

  /** GET /api/stats/file-heatmap?project= (required). */
  async getFileHeatmap(params: FileHeatmapParams, options?: CallOptions): Promise<T.FileHeatmap> {
    const query = this.input(fileHeatmapParams, params, 'GET /api/stats/file-heatmap');
    return this.call({ method: 'GET', path: '/api/stats/file-heatmap', query }, fileHeatmap, options);
  }

  /** GET /api/stats/session-breakdown?session_id= (required by the server). */
  async getSessionBreakdown(sessionId: string, options?: CallOptions): Promise<T.Breakdown> {
    const query = this.input(sessionBreakdownParams, { sessionId }, 'GET /api/stats/session-breakdown');
    return this.call({ method: 'GET', path: '/api/stats/session-breakdown', query }, breakdown, options);
  }

  /** GET /api/stats/project-breakdown?project= (project path; required by the server). */
  async getProjectBreakdown(project: string, options?: CallOptions): Promise<T.Breakdown> {
    const query = this.input(projectBreakdownParams, { project }, 'GET /api/stats/project-breakdown');
    return this.call({ method: 'GET', path: '/api/stats/project-breakdown', query }, breakdown, options);
  }

  /** GET /api/stats/insights: period-over-period metrics (server extension). */
  async getInsights(filter: InsightsFilter = {}, options?: CallOptions): Promise<T.Insights> {
    const query = this.input(insightsFilter, filter, 'GET /api/stats/insights');
    return this.call({ method: 'GET', path: '/api/stats/insights', query }, insights, options);
  }

  /** GET /api/stats/active-sessions: sessions with tool activity in the last 15 minutes (server extension). */
  async getActiveSessions(options?: CallOptions): Promise<T.ActiveSession[]> {
    return this.call({ method: 'GET', path: '/api/stats/active-sessions' }, activeSessions, options);
  }
}
