/** Connector resource (spec: Connector), the body of POST /connectors and the API form. */
import { z } from 'zod';
import {
  ClassificationLevelSchema,
  type CONNECTOR_TYPES,
  ConnectorTypeSchema,
} from '../classification-lattice';
import { TenantIdSchema, Timestamp, Uuid } from '../vocabulary';

export const CONNECTOR_STATUSES = ['active', 'disabled', 'error'] as const;
export type ConnectorStatus = (typeof CONNECTOR_STATUSES)[number];
export const CONNECTOR_PERMISSIONS = ['read', 'write', 'admin'] as const;

export const ConnectorSchema = z.object({
  id: Uuid,
  type: ConnectorTypeSchema,
  tenantId: TenantIdSchema,
  userId: z.string().max(255).nullable().default(null),
  permissions: z.enum(CONNECTOR_PERMISSIONS).default('read'),
  defaultClassification: ClassificationLevelSchema,
  status: z.enum(CONNECTOR_STATUSES).default('active'),
  credentialsRef: z.string().min(1).max(255),
  lastSyncAt: Timestamp.nullable().default(null),
  errorDetails: z.string().nullable().default(null),
  config: z.record(z.string(), z.unknown()).default({}),
  createdAt: Timestamp,
});
export type Connector = z.infer<typeof ConnectorSchema>;

/** Body of POST /connectors (snake_case `credentials_secret_ref`, as the spec's API form). */
export const ConnectorCreateSchema = z.object({
  type: ConnectorTypeSchema,
  credentials_secret_ref: z.string().min(1).max(255),
  config: z.record(z.string(), z.unknown()).default({}),
});
export type ConnectorCreate = z.infer<typeof ConnectorCreateSchema>;

/** API form of a connector: id, type, tenantId, credentialsSecretRef, config, status, createdAt. */
export interface ConnectorView {
  id: string;
  type: (typeof CONNECTOR_TYPES)[number];
  tenantId: string;
  credentialsSecretRef: string;
  config: Record<string, unknown>;
  status: ConnectorStatus;
  createdAt: string;
}
export function toConnectorView(c: Connector): ConnectorView {
  return {
    id: c.id,
    type: c.type,
    tenantId: c.tenantId,
    credentialsSecretRef: c.credentialsRef,
    config: c.config,
    status: c.status,
    createdAt: c.createdAt,
  };
}
