/** Briefing resource (spec: Briefing). */
import { z } from 'zod';
import { ConnectorTypeSchema } from '../classification-lattice';
import { TenantIdSchema, Timestamp, Uuid } from '../vocabulary';

export const NEWS_RELEVANCE = ['must-read', 'should-read', 'nice-to-know', 'skip'] as const;
export const BRIEFING_CONNECTOR_STATUS = ['ok', 'partial', 'error', 'unreachable'] as const;
export const DELIVERY_CHANNELS = ['chat', 'email', 'web_ui'] as const;

export const BriefingSchema = z.object({
  id: Uuid,
  userId: z.string().min(1),
  tenantId: TenantIdSchema,
  generatedAt: Timestamp,
  tasks: z.array(z.object({ taskId: Uuid, rank: z.number().int().min(1) })).default([]),
  timeBlocks: z
    .array(z.object({ start: Timestamp, end: Timestamp, taskId: Uuid.nullable(), label: z.string() }))
    .default([]),
  autoResponseSummary: z.record(z.string(), z.unknown()).default({}),
  orgNewsItems: z
    .array(z.object({ title: z.string(), relevance: z.enum(NEWS_RELEVANCE), source: z.string() }))
    .default([]),
  docChangeAlerts: z
    .array(z.object({ docId: z.string(), summary: z.string(), impact: z.string() }))
    .default([]),
  alerts: z.array(z.object({ type: z.string(), message: z.string(), severity: z.string() })).default([]),
  connectorStatus: z.partialRecord(ConnectorTypeSchema, z.enum(BRIEFING_CONNECTOR_STATUS)).default({}),
  deliveryChannel: z.enum(DELIVERY_CHANNELS),
  deliveredAt: Timestamp.nullable().default(null),
});
export type Briefing = z.infer<typeof BriefingSchema>;
