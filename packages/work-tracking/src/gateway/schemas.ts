/** Request and response schemas of the plugin's authenticated routes (they also drive the OpenAPI document). */
import {
  BriefingSchema,
  CLASSIFICATION_LEVELS,
  DataClassificationSchema,
  instantSchema,
  TaskSchema,
  TrackerWriteSchema,
  UrgencySignalsSchema,
} from '@agentgov/core';
import { z } from 'zod';
import { parseDate } from '../time-zone';

export const Level = z.enum(CLASSIFICATION_LEVELS);

export const StandupBodySchema = z.object({
  userId: z.string().min(1).max(255),
  // The day's bounds in any time zone (±14 h) stay within the years 0001–9999 that stores hold.
  date: z
    .string()
    .refine(
      (d) => parseDate(d) !== undefined && d > '0001-01-01' && d < '9999-12-31',
      'must be a calendar date YYYY-MM-DD from 0001-01-02 to 9999-12-30',
    ),
});
const PR = z.object({
  subject: z.string(),
  title: z.string(),
  url: z.string(),
  tickets: z.array(z.string()),
  at: z.string(),
});
export const StandupSummarySchema = z
  .object({
    userId: z.string(),
    date: z.string(),
    timeZone: z.string(),
    from: z.string(),
    to: z.string(),
    pullRequests: z.object({
      opened: z.array(PR),
      merged: z.array(PR),
      closed: z.array(PR),
      reviewed: z.array(PR.extend({ state: z.string() })),
    }),
    pushes: z.array(
      z.object({
        repository: z.string(),
        branch: z.string(),
        commits: z.number(),
        headline: z.string(),
        tickets: z.array(z.string()),
        at: z.string(),
      }),
    ),
    ticketsUpdated: z.array(
      z.object({
        ticketId: z.string(),
        title: z.string(),
        url: z.string(),
        changes: z.array(
          z.object({ field: z.string(), from: z.string().nullable(), to: z.string().nullable() }),
        ),
        at: z.string(),
      }),
    ),
    tickets: z.array(z.string()),
    totals: z.record(z.string(), z.number()),
    summaryText: z.string(),
  })
  .meta({ id: 'StandupSummary' });

export const ConnectorItemSchema = z.object({
  system: z.string().min(1).max(64),
  id: z.string().min(1).max(255),
  url: z.string().max(2048).optional(),
  userId: z.string().min(1).max(255),
  title: z.string().min(1).max(255),
  description: z.string().max(65_536).optional(),
  /** Core's one instant parser: to UTC, then within the years 0001–9999 (a 400 otherwise). */
  deadline: instantSchema({ dates: false }).nullable().optional(),
  urgencySignals: UrgencySignalsSchema.partial().optional(),
  classification: Level.optional(),
});
export const TaskOut = TaskSchema.meta({ id: 'Task' });
export const BriefingOut = BriefingSchema.meta({ id: 'Briefing' });
export const ClassificationOut = DataClassificationSchema.meta({ id: 'DataClassification' });
export const WriteOut = TrackerWriteSchema.meta({ id: 'TrackerWrite' });
export const UserQuery = z.object({ userId: z.string().min(1).max(255).optional() });
