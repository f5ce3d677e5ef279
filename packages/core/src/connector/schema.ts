/** Connector resource (spec: Connector), the body of POST /connectors and the API form. */
import { z } from 'zod';
import {
  ClassificationLevelSchema,
  type CONNECTOR_TYPES,
  type ConnectorType,
  ConnectorTypeSchema,
} from '../classification-lattice';
import { isReservedSecretRef } from '../secret/port';
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

/** Field names that hold a secret unless they are references (`…Ref`, `…_ref`). */
const SECRET_KEY_RE = /(secret|passw(or)?d|token|api[_-]?key|private[_-]?key|credential|client[_-]?secret)/i;
const REF_KEY_RE = /(ref|_ref|Ref)$/;
/** Values that look like a secret whatever their field: PEM keys, JWTs, well-known token prefixes. */
const SECRET_VALUE_RE =
  /-----BEGIN [A-Z ]*PRIVATE KEY-----|^eyJ[\w-]{8,}\.[\w-]{8,}\.|^(ghp|gho|ghs|github_pat|glpat|xox[abpr]|sk|sk_live|rk_live)[-_][A-Za-z0-9_-]{10,}|^AKIA[0-9A-Z]{16}$/;

/** Where a plain config field carries something that looks like a secret (path, why), if anywhere. */
function plaintextSecretIn(value: unknown, path: string[] = [], depth = 0): string[] | undefined {
  if (depth > 16) return undefined;
  if (typeof value === 'string') return SECRET_VALUE_RE.test(value) ? path : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [k, v] of Object.entries(value)) {
    if (SECRET_KEY_RE.test(k) && !REF_KEY_RE.test(k) && typeof v === 'string' && v !== '')
      return [...path, k];
    const found = plaintextSecretIn(v, [...path, k], depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * A secret reference a tenant's connector may hold: 1–255 characters, never one of the server's
 * own secrets (`isReservedSecretRef`: the store is shared by every tenant, and a connector sends
 * its credentials to a URL its admin chose), and never a value that looks like a secret itself (a
 * token pasted where its reference belongs: it would be stored and echoed back in plain text).
 */
export const SecretRefField = z
  .string()
  .min(1)
  .max(255)
  .refine((ref) => !isReservedSecretRef(ref), {
    message: "names one of the server's own secrets (audit-…, agentgov-…): a connector may not use it",
  })
  .refine((ref) => !SECRET_VALUE_RE.test(ref), {
    message:
      'looks like a secret in plain text, not a reference to one; store the secret in the secret store and pass its reference',
  });

/**
 * The secret references a connector names: its credentials, and its webhook secret and the
 * previous one of a rotation (`config.webhookSecretRef`, `config.previousWebhookSecretRef`).
 */
export function secretRefsOf(c: Pick<Connector, 'credentialsRef' | 'config'>): string[] {
  const refs = [c.credentialsRef];
  for (const key of ['webhookSecretRef', 'previousWebhookSecretRef']) {
    const ref = c.config[key];
    if (typeof ref === 'string' && ref !== '' && !refs.includes(ref)) refs.push(ref);
  }
  return refs;
}

/** A connector's `config`: any JSON object without a secret in plain text (see below). */
export const ConnectorConfigSchema = z.record(z.string(), z.unknown()).superRefine((config, issue) => {
  const at = plaintextSecretIn(config);
  if (at)
    issue.addIssue({
      code: 'custom',
      path: at,
      message:
        'looks like a secret in plain text; store it in the secret store and pass its reference (a field ending in Ref, or credentials_secret_ref)',
    });
});

/**
 * Types of which a tenant has at most one active connector: `tracker` and `codehost` (the
 * work-tracking integration of a tenant is its one tracker and its one code host; a second would be
 * silently ignored). `mail`, `calendar` and `drive` may repeat (one per mailbox, calendar, drive).
 */
export const CONNECTOR_SINGLE_ACTIVE_TYPES: readonly ConnectorType[] = ['tracker', 'codehost'];

/**
 * Body of POST /connectors (snake_case `credentials_secret_ref`, as the spec's API form). Secrets
 * enter only as references to the secret store: a plain config field that looks like one (named
 * like a password or token, or holding a private key, a JWT, a well-known token format) is refused.
 */
export const ConnectorCreateSchema = z.object({
  type: ConnectorTypeSchema,
  credentials_secret_ref: SecretRefField,
  config: ConnectorConfigSchema.default({}),
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
