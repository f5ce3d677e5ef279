// Wire mapping of the usage and cost statistics: totals, daily usage, models, projects, token
// efficiency, prompt patterns and period-over-period insights (`/api/stats`, `/api/stats/{daily,
// models,projects,token-efficiency,prompt-patterns,insights}`).
import { z } from 'zod';
import type * as T from '../types';
import { arr, decoder, extraOf, list, n, num, s, snakeToCamel, text, wrappedList } from './primitives';

const wireTotals = z.object({ sessions: num, tool_calls: num, tokens: num, cost: num }).loose();
const mapTotals = (w: z.infer<typeof wireTotals> | null | undefined): T.UsageTotals => ({
  sessions: n(w?.sessions),
  toolCalls: n(w?.tool_calls),
  tokens: n(w?.tokens),
  cost: n(w?.cost),
});
const wireStats = z
  .object({
    period_label: text,
    today: wireTotals.nullish(),
    total: wireTotals.nullish(),
    active_sessions: num,
  })
  .loose();
export const stats = decoder(
  wireStats,
  (w): T.Stats => ({
    periodLabel: s(w.period_label),
    period: mapTotals(w.today),
    total: mapTotals(w.total),
    activeSessions: n(w.active_sessions),
    extra: extraOf(w, wireStats),
  }),
);

const wireDaily = z.object({ date: z.string(), sessions: num, tokens: num, cost: num }).loose();
export const dailyList = wrappedList(
  'days',
  wireDaily,
  (d): T.DailyStat => ({
    date: d.date,
    sessions: n(d.sessions),
    tokens: n(d.tokens),
    cost: n(d.cost),
    extra: extraOf(d, wireDaily),
  }),
);

const wireModelStat = z.object({ name: z.string(), tokens: num, cost: num }).loose();
export const modelStats = wrappedList(
  'models',
  wireModelStat,
  (m): T.ModelStat => ({
    name: m.name,
    tokens: n(m.tokens),
    cost: n(m.cost),
    extra: extraOf(m, wireModelStat),
  }),
);

const wireProjectStat = z.object({ name: text, path: z.string(), sessions: num, cost: num }).loose();
export const projectStats = wrappedList(
  'projects',
  wireProjectStat,
  (p): T.ProjectStat => ({
    name: s(p.name),
    path: p.path,
    sessions: n(p.sessions),
    cost: n(p.cost),
    extra: extraOf(p, wireProjectStat),
  }),
);

const wireModelEfficiency = z
  .object({ model: z.string(), avg_output_ratio: num, cache_hit_rate: num })
  .loose();
const wireTokenEfficiency = z
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
export const tokenEfficiency = decoder(
  wireTokenEfficiency,
  (w): T.TokenEfficiency => ({
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
  }),
);

const wireCategory = z.object({ name: z.string(), count: num, percentage: num }).loose();
/** A trend row is `{date, <category>: count, ...}`: every other key is a category. */
const wireTrend = z.object({ date: z.string() }).catchall(z.number());
const wirePromptPatterns = z.object({ categories: list(wireCategory), trends: list(wireTrend) }).loose();
export const promptPatterns = decoder(
  wirePromptPatterns,
  (w): T.PromptPatterns => ({
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
  }),
);

const wirePoint = z.object({ date: z.string(), value: num }).loose();
const mapPoint = (p: z.infer<typeof wirePoint>): T.SeriesPoint => ({ date: p.date, value: n(p.value) });
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
const wireInsights = z
  .object({ period: text, from: text, to: text, metrics: z.record(z.string(), wireInsightMetric).nullish() })
  .loose();
export const insights = decoder(wireInsights, (w): T.Insights => {
  const metrics: Record<string, T.InsightMetric> = {};
  for (const [key, m] of Object.entries(w.metrics ?? {})) {
    metrics[snakeToCamel(key)] = {
      current: n(m.current),
      previous: n(m.previous),
      deltaPct: n(m.delta_pct),
      trend: s(m.trend),
      series: arr(m.series, mapPoint),
      previousSeries: arr(m.previous_series, mapPoint),
      extra: extraOf(m, wireInsightMetric),
    };
  }
  return { period: s(w.period), from: s(w.from), to: s(w.to), metrics, extra: extraOf(w, wireInsights) };
});
