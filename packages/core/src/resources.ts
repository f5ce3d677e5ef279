/**
 * zod schemas and inferred types for every resource of the governance spec
 * (`spec/governance-service.md`, "Resources and their fields"). Timestamps are ISO 8601 strings.
 */
import { z } from 'zod';
import {
  CLASSIFICATION_SOURCES,
  ClassificationLevelSchema,
  type CONNECTOR_TYPES,
  ConnectorTypeSchema,
} from './classification';

export const Timestamp = z.iso.datetime({ offset: true });
export const Uuid = z.uuid();

/** Semantic version 2.0.0 (the regex published by semver.org). */
export const SEMVER_RE =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
export const SemVer = z.string().max(255).regex(SEMVER_RE, 'must be a semantic version such as 1.0.0');

/** Upper bound of a policy's YAML content (not in the spec; keeps one policy well under the 1 MiB body limit). */
export const MAX_POLICY_CONTENT_LENGTH = 256 * 1024;

// ---------------------------------------------------------------------------------------------
// Tenancy and scopes

export const SCOPES = ['enterprise', 'org', 'team', 'user'] as const;
export type Scope = (typeof SCOPES)[number];
export const ScopeSchema = z.enum(SCOPES);
/** Depth of a scope in the hierarchy: enterprise 0 … user 3. */
export const SCOPE_DEPTH: Readonly<Record<Scope, number>> = { enterprise: 0, org: 1, team: 2, user: 3 };

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

export const ROLES = ['enterprise_admin', 'org_admin', 'team_lead', 'user'] as const;
export type Role = (typeof ROLES)[number];
export const RoleSchema = z.enum(ROLES);

export const TenantIdSchema = z.string().min(1).max(255);

// ---------------------------------------------------------------------------------------------
// Policy

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

// ---------------------------------------------------------------------------------------------
// Task

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

// ---------------------------------------------------------------------------------------------
// Connector

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

// ---------------------------------------------------------------------------------------------
// Interchange: exchange types, agent identity, exchange, envelope

export const EXCHANGE_TYPES = ['information_query', 'commitment_request', 'meeting_scheduling'] as const;
export type ExchangeType = (typeof EXCHANGE_TYPES)[number];
export const ExchangeTypeSchema = z.enum(EXCHANGE_TYPES);

/** INTERCHANGE_DEFAULT_MAX_ROUNDS of the spec. */
export const INTERCHANGE_DEFAULT_MAX_ROUNDS = 3;
export const INTERCHANGE_PROTOCOL_VERSION = '1.0';

export const HUMAN_AVAILABILITY = ['online', 'away', 'offline'] as const;

export const AgentIdentitySchema = z.object({
  instanceId: z.string().min(1),
  userId: z.string().min(1),
  tenantId: z.string().min(1),
  orgUnit: z.string().min(1),
  canReceiveQueries: z.boolean(),
  canAutoRespond: z.boolean(),
  /** Always false for agent-generated messages: a human must approve any commitment. */
  canMakeCommitments: z.literal(false),
  maxClassificationShared: ClassificationLevelSchema,
  supportedExchangeTypes: z.array(ExchangeTypeSchema),
  maxRoundsAccepted: z.number().int().min(1),
  humanAvailability: z.enum(HUMAN_AVAILABILITY).default('online'),
});
export type AgentIdentity = z.infer<typeof AgentIdentitySchema>;

/** Configuration form: the `defaultAgentIdentity` JSON of the integration entry of type `interchange`. */
export const AgentIdentityConfigSchema = z.strictObject({
  canReceiveQueries: z.boolean().default(true),
  canAutoRespond: z.boolean().default(true),
  /** May be set true, but commitments still need human approval. */
  canMakeCommitments: z.boolean().default(false),
  maxClassificationShared: ClassificationLevelSchema.default('internal'),
  supportedExchangeTypes: z.array(ExchangeTypeSchema).default([...EXCHANGE_TYPES]),
  maxRoundsAccepted: z.number().int().min(1).default(INTERCHANGE_DEFAULT_MAX_ROUNDS),
});
export type AgentIdentityConfig = z.infer<typeof AgentIdentityConfigSchema>;

export const EXCHANGE_OUTCOMES = ['in_progress', 'resolved', 'escalated', 'denied', 'expired'] as const;
export type ExchangeOutcome = (typeof EXCHANGE_OUTCOMES)[number];

export const DataSharedSchema = z.object({ source: z.string(), fields: z.array(z.string()) });
export const DataWithheldSchema = z.object({ reason: z.string(), description: z.string() });

export const ExchangeSchema = z.object({
  exchangeId: Uuid,
  tenantId: TenantIdSchema,
  conversationId: Uuid,
  initiatorAgentId: z.string().min(1),
  initiatorUserId: z.string().min(1),
  responderAgentId: z.string().min(1),
  responderUserId: z.string().min(1),
  exchangeType: ExchangeTypeSchema,
  currentRound: z.number().int().min(0).default(0),
  maxRounds: z.number().int().min(1).default(INTERCHANGE_DEFAULT_MAX_ROUNDS),
  classificationLevel: ClassificationLevelSchema,
  outcome: z.enum(EXCHANGE_OUTCOMES).default('in_progress'),
  escalationReason: z.string().nullable().default(null),
  dataShared: z.array(DataSharedSchema).default([]),
  dataWithheld: z.array(DataWithheldSchema).default([]),
  policyApplied: z.string().min(1),
  transcript: z.array(z.record(z.string(), z.unknown())).default([]),
  channel: z.string().min(1),
  startedAt: Timestamp,
  endedAt: Timestamp.nullable().default(null),
});
export type Exchange = z.infer<typeof ExchangeSchema>;

export const MESSAGE_TYPES = ['agent-generated', 'agent-assisted', 'human'] as const;
export const REPLY_POLICIES = ['agent-ok', 'human-only', 'no-reply-needed'] as const;

export const EnvelopeSchema = z.object({
  protocolVersion: z.literal(INTERCHANGE_PROTOCOL_VERSION),
  messageType: z.enum(MESSAGE_TYPES),
  replyPolicy: z.enum(REPLY_POLICIES),
  exchangeId: Uuid,
  currentRound: z.number().int().min(0),
  maxRounds: z.number().int().min(1),
  classificationLevel: ClassificationLevelSchema,
  aiDisclosureLabel: z.string().min(1),
});
export type Envelope = z.infer<typeof EnvelopeSchema>;

// ---------------------------------------------------------------------------------------------
// Audit

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

// ---------------------------------------------------------------------------------------------
// Briefing, DataClassification, Tenant

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

export const DataClassificationSchema = z.object({
  tenantId: TenantIdSchema,
  dataRef: z.string().min(1).max(1024),
  level: ClassificationLevelSchema,
  assignedBy: z.enum(CLASSIFICATION_SOURCES),
  originalLevel: ClassificationLevelSchema.nullable().default(null),
  overrideBy: z.string().nullable().default(null),
  overrideReason: z.string().nullable().default(null),
  assessedAt: Timestamp,
});
export type DataClassification = z.infer<typeof DataClassificationSchema>;

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
