/** Policy resource (spec: Policy) and the bodies of POST /policies and PUT /policies/{id}. */
import { z } from 'zod';
import { ScopeSchema, SemVer, TenantIdSchema, Timestamp, Uuid } from '../vocabulary';

/** Upper bound of a policy's YAML content (not in the spec; keeps one policy well under the 1 MiB body limit). */
export const MAX_POLICY_CONTENT_LENGTH = 256 * 1024;

export const POLICY_DOMAINS = [
  'models',
  'actions',
  'integrations',
  'agent-to-agent',
  'features',
  'data',
  'audit',
] as const;
export type PolicyDomain = (typeof POLICY_DOMAINS)[number];
export const PolicyDomainSchema = z.enum(POLICY_DOMAINS);

export const POLICY_STATUSES = ['draft', 'active', 'deprecated'] as const;
export type PolicyStatus = (typeof POLICY_STATUSES)[number];

export const PolicySchema = z.object({
  id: Uuid,
  /** Extension: the tenant the policy belongs to (every stored row carries it). */
  tenantId: TenantIdSchema,
  scope: ScopeSchema,
  scopeId: z.string().min(1).max(255),
  domain: PolicyDomainSchema,
  name: z.string().min(1).max(255),
  version: SemVer,
  content: z.string().min(1).max(MAX_POLICY_CONTENT_LENGTH),
  status: z.enum(POLICY_STATUSES).default('draft'),
  createdBy: z.string().min(1).max(255),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  changeReason: z.string().min(1).max(4096),
});
export type Policy = z.infer<typeof PolicySchema>;

/** Body of POST /policies. */
export const PolicyCreateSchema = z.object({
  scope: ScopeSchema,
  scopeId: z.string().min(1).max(255),
  domain: PolicyDomainSchema,
  name: z.string().min(1).max(255),
  version: SemVer,
  content: z.string().min(1).max(MAX_POLICY_CONTENT_LENGTH),
  changeReason: z.string().min(1).max(4096),
});
export type PolicyCreate = z.infer<typeof PolicyCreateSchema>;

/** Body of PUT /policies/{id}: content and changeReason (version may be bumped alongside). */
export const PolicyUpdateSchema = z.object({
  content: z.string().min(1).max(MAX_POLICY_CONTENT_LENGTH),
  changeReason: z.string().min(1).max(4096),
  version: SemVer.optional(),
});
export type PolicyUpdate = z.infer<typeof PolicyUpdateSchema>;
