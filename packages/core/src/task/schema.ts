/** Task resource (spec: Task), its retention phases and correlation thresholds. */
import { z } from 'zod';
import { ClassificationLevelSchema } from '../classification-lattice';
import { TenantIdSchema, Timestamp, Uuid } from '../vocabulary';

export const TASK_STATUSES = ['discovered', 'active', 'completed', 'archived', 'purged'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const UrgencySignalsSchema = z.object({
  senderSeniority: z.number().nullable().default(null),
  followUpCount: z.number().int().min(0).default(0),
  slaTimer: z.string().nullable().default(null),
  blockingRelationships: z.array(z.string()).default([]),
});
export type UrgencySignals = z.infer<typeof UrgencySignalsSchema>;

export const TaskSchema = z.object({
  id: Uuid,
  tenantId: TenantIdSchema,
  userId: z.string().min(1).max(255),
  title: z.string().min(1).max(255),
  description: z.string().default(''),
  priorityScore: z.number().int().min(0).max(100).default(0),
  status: z.enum(TASK_STATUSES).default('discovered'),
  sources: z.array(z.object({ system: z.string(), id: z.string(), url: z.string() })).default([]),
  correlationId: Uuid.nullable().default(null),
  correlationConfidence: z.number().min(0).max(1).nullable().default(null),
  deadline: Timestamp.nullable().default(null),
  urgencySignals: UrgencySignalsSchema.default({
    senderSeniority: null,
    followUpCount: 0,
    slaTimer: null,
    blockingRelationships: [],
  }),
  classification: ClassificationLevelSchema.default('internal'),
  discoveredAt: Timestamp,
  completedAt: Timestamp.nullable().default(null),
  archivedAt: Timestamp.nullable().default(null),
  purgeAt: Timestamp.nullable().default(null),
});
export type Task = z.infer<typeof TaskSchema>;

/** Retention phases of tasks, in days (spec: Task, Retention). */
export const TASK_RETENTION_DAYS = {
  active: 90,
  archiveAfterCompletion: 30,
  purgeAfterArchival: 90,
} as const;
/** Correlation thresholds (spec: Task, Correlation thresholds). */
export const CORRELATION_THRESHOLDS = { autoMerge: 0.8, review: 0.5 } as const;
