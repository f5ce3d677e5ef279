// Wire mapping of the tool-centred statistics: tool, skill and MCP usage, errors per tool, the file
// heatmap, and the per-session/per-project breakdown (`/api/stats/{tools,skills,mcp,errors,
// file-heatmap,session-breakdown,project-breakdown}`).
import { z } from 'zod';
import type * as T from '../types';
import { arr, decoder, extraOf, list, n, num, wrappedList } from './primitives';

const wireToolStat = z.object({ name: z.string(), count: num, success_rate: num }).loose();
export const toolStats = wrappedList(
  'tools',
  wireToolStat,
  (t): T.ToolStat => ({
    name: t.name,
    count: n(t.count),
    successRate: n(t.success_rate),
    extra: extraOf(t, wireToolStat),
  }),
);

const wireNamedCount = z.object({ name: z.string(), count: num }).loose();
const mapNamedCount = (c: z.infer<typeof wireNamedCount>): T.NamedCount => ({
  name: c.name,
  count: n(c.count),
  extra: extraOf(c, wireNamedCount),
});
export const skillStats = wrappedList('skills', wireNamedCount, mapNamedCount);

const wireMcpServer = z.object({ name: z.string(), count: num, tools: list(wireNamedCount) }).loose();
const mapMcpServer = (m: z.infer<typeof wireMcpServer>): T.McpServerStat => ({
  name: m.name,
  count: n(m.count),
  tools: arr(m.tools, mapNamedCount),
  extra: extraOf(m, wireMcpServer),
});
export const mcpStats = wrappedList('servers', wireMcpServer, mapMcpServer);

const wireToolError = z.object({ tool: z.string(), errors: num, total: num, rate: num }).loose();
const wireErrorTrend = z.object({ date: z.string(), errors: num, total: num }).loose();
const wireErrorStats = z
  .object({
    total_errors: num,
    error_rate: num,
    errors_by_tool: list(wireToolError),
    common_errors: list(z.record(z.string(), z.unknown())),
    error_trend: list(wireErrorTrend),
  })
  .loose();
export const errorStats = decoder(
  wireErrorStats,
  (w): T.ErrorStats => ({
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
  }),
);

const wireFileHeat = z.object({ path: z.string(), reads: num, writes: num, edits: num, total: num }).loose();
const wireDirHeat = z.object({ path: z.string(), total: num }).loose();
const wireFileHeatmap = z.object({ files: list(wireFileHeat), directories: list(wireDirHeat) }).loose();
export const fileHeatmap = decoder(
  wireFileHeatmap,
  (w): T.FileHeatmap => ({
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
  }),
);

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
/** `GET /api/stats/session-breakdown` and `GET /api/stats/project-breakdown`. */
export const breakdown = decoder(wireBreakdown, mapBreakdown);
