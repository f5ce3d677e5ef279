/** AuditEntry resource (spec: AuditEntry) and the input an audit sink accepts. */
import { z } from 'zod';
import { ClassificationLevelSchema } from '../classification-lattice';
import { TenantIdSchema, Timestamp } from '../vocabulary';

export const ACTION_TYPES = [
  'tool_invocation',
  'data_access',
  'model_call',
  'policy_decision',
  'agent_exchange',
  'policy_change',
] as const;
export type ActionType = (typeof ACTION_TYPES)[number];
export const ActionTypeSchema = z.enum(ACTION_TYPES);
export const POLICY_RESULTS = ['allow', 'deny', 'require_approval'] as const;
export type PolicyResult = (typeof POLICY_RESULTS)[number];
export const AUDIT_OUTCOMES = ['success', 'denied', 'error', 'pending_approval'] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

export const DataAccessedSchema = z.object({
  source: z.string(),
  classification: ClassificationLevelSchema,
  purpose: z.string(),
});

/** Everything of an AuditEntry that the caller supplies; id and (by default) timestamp are assigned. */
export const AuditEntryInputSchema = z.object({
  tenantId: TenantIdSchema,
  userId: z.string().min(1).max(255),
  timestamp: Timestamp.optional(),
  actionType: ActionTypeSchema,
  actionDetail: z.record(z.string(), z.unknown()).default({}),
  dataAccessed: z.array(DataAccessedSchema).default([]),
  modelUsed: z.string().nullable().default(null),
  modelTokens: z
    .object({ input: z.number().int().min(0), output: z.number().int().min(0) })
    .nullable()
    .default(null),
  dataClassification: ClassificationLevelSchema.default('public'),
  policyApplied: z.string().min(1).max(255),
  policyResult: z.enum(POLICY_RESULTS),
  policyReason: z.string().default(''),
  outcome: z.enum(AUDIT_OUTCOMES),
  requestId: z.string().min(1).max(255),
});
export type AuditEntryInput = z.input<typeof AuditEntryInputSchema>;

export const AuditEntrySchema = AuditEntryInputSchema.extend({
  id: z.string().length(26),
  timestamp: Timestamp,
});
export type AuditEntry = z.infer<typeof AuditEntrySchema>;
