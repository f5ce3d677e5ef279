// Input schemas of the stats endpoints (the spec's `/api/stats/*`, plus the server's insights).
import { z } from 'zod';
import { checkRange, dateRangeShape, type Query, required } from './common';

const statsFilterShape = {
  /** Project path (these endpoints match the path only, not the name). */
  project: z.string({ error: 'must be a string' }).optional(),
  ...dateRangeShape,
};

/** `GET /api/stats` and `GET /api/stats/errors`: project, from, to. */
export const statsFilter = z
  .strictObject(statsFilterShape)
  .superRefine(checkRange)
  .transform((v): Query => ({ project: v.project, from: v.from, to: v.to }));

/** `GET /api/stats/daily`: `days` (server default 90). */
export const dailyParams = z
  .strictObject({
    days: z
      .number({ error: 'must be a number' })
      .int({ error: 'must be an integer' })
      .min(1, { error: 'must be >= 1' })
      .optional(),
  })
  .transform((v): Query => ({ days: v.days }));

/** `GET /api/stats/file-heatmap`: `project` is required (the spec and the server agree). */
export const fileHeatmapParams = z
  .strictObject({ project: required })
  .transform((v): Query => ({ project: v.project }));

/** `GET /api/stats/session-breakdown`: `session_id` (the server answers 400 without it). */
export const sessionBreakdownParams = z
  .strictObject({ sessionId: required })
  .transform((v): Query => ({ session_id: v.sessionId }));

/** `GET /api/stats/project-breakdown`: `project` (the server answers 400 without it). */
export const projectBreakdownParams = z
  .strictObject({ project: required })
  .transform((v): Query => ({ project: v.project }));

/** `GET /api/stats/insights` (server extension): a period and the stats filter. */
export const insightsFilter = z
  .strictObject({
    period: z
      .enum(['daily', 'weekly', 'monthly'], { error: "must be 'daily', 'weekly' or 'monthly'" })
      .optional(),
    ...statsFilterShape,
  })
  .superRefine(checkRange)
  .transform((v): Query => ({ period: v.period, project: v.project, from: v.from, to: v.to }));

export type StatsFilter = z.input<typeof statsFilter>;
export type DailyStatsParams = z.input<typeof dailyParams>;
export type FileHeatmapParams = z.input<typeof fileHeatmapParams>;
export type InsightsFilter = z.input<typeof insightsFilter>;
