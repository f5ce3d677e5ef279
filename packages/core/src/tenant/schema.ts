/** Tenant resource and its API form. */
import { z } from 'zod';
import { TenantIdSchema, Timestamp } from '../vocabulary';

export const TENANT_STATUSES = ['active', 'suspended'] as const;
export const TenantSchema = z.object({
  id: TenantIdSchema,
  name: z.string().min(1).max(255),
  status: z.enum(TENANT_STATUSES).default('active'),
  createdAt: Timestamp,
});
export type Tenant = z.infer<typeof TenantSchema>;

/** API form of a tenant (GET /tenants, /tenants/{id}/status). */
export interface TenantView extends Tenant {
  gatewayInstances: number;
  connectorCount: number;
  policyCount: number;
  userCount: number;
}
