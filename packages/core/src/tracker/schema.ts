/**
 * Work-tracking records: webhook deliveries (idempotency), the activity they record (standups),
 * and the tracker-write outbox (durable, retried writes).
 */
import { z } from 'zod';
import { TenantIdSchema, Timestamp, Uuid } from '../vocabulary';

export const WEBHOOK_SOURCES = ['codehost', 'tracker'] as const;
export type WebhookSource = (typeof WEBHOOK_SOURCES)[number];

export const WebhookDeliverySchema = z.object({
  tenantId: TenantIdSchema,
  source: z.enum(WEBHOOK_SOURCES),
  /** The sender's delivery id (`X-GitHub-Delivery`, …) or the body's SHA-256 when none is sent. */
  deliveryId: z.string().min(1).max(255),
  event: z.string().min(1).max(255),
  receivedAt: Timestamp,
});
export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;

export const ACTIVITY_KINDS = [
  'pr_opened',
  'pr_closed',
  'pr_merged',
  'pr_reviewed',
  'push',
  'ticket_updated',
] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

export const WorkActivitySchema = z.object({
  id: Uuid,
  tenantId: TenantIdSchema,
  /** The agentgov user the activity belongs to (mapped from the sender's login). */
  userId: z.string().min(1).max(255),
  kind: z.enum(ACTIVITY_KINDS),
  occurredAt: Timestamp,
  source: z.enum(WEBHOOK_SOURCES),
  deliveryId: z.string().min(1).max(255),
  /** What it is about: `owner/repo#12`, `owner/repo@refs/heads/main`, `ENG-12`. */
  subject: z.string().max(1024),
  title: z.string().max(1024).default(''),
  url: z.string().max(2048).default(''),
  /** Ticket keys referenced, deduplicated. */
  tickets: z.array(z.string()).default([]),
  /** Kind-specific details (commit count, review state, changed fields, …). */
  detail: z.record(z.string(), z.unknown()).default({}),
});
export type WorkActivity = z.infer<typeof WorkActivitySchema>;

export const TRACKER_TOOLS = ['tracker_update', 'tracker_transition'] as const;
export type TrackerTool = (typeof TRACKER_TOOLS)[number];
export const OUTBOX_STATES = ['pending', 'delivered', 'failed'] as const;
export type OutboxState = (typeof OUTBOX_STATES)[number];

export const TrackerWriteSchema = z.object({
  id: Uuid,
  tenantId: TenantIdSchema,
  tool: z.enum(TRACKER_TOOLS),
  ticketId: z.string().min(1).max(255),
  /** `tracker_update`: the comment; `tracker_transition`: the transition name. */
  comment: z.string().nullable().default(null),
  transitionName: z.string().nullable().default(null),
  state: z.enum(OUTBOX_STATES).default('pending'),
  attempts: z.number().int().min(0).default(0),
  /** When the write may next be attempted (also the lease end of a claimed write). */
  nextAttemptAt: Timestamp,
  lastError: z.string().nullable().default(null),
  createdAt: Timestamp,
  deliveredAt: Timestamp.nullable().default(null),
  /** Where it came from, for the audit entry written when it is delivered or fails. */
  userId: z.string().min(1).max(255),
  requestId: z.string().min(1).max(255),
  deliveryId: z.string().min(1).max(255),
  policyApplied: z.string().max(255),
  policyReason: z.string().default(''),
});
export type TrackerWrite = z.infer<typeof TrackerWriteSchema>;
