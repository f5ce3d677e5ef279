/** Interchange resources (spec: Exchange, AgentIdentity, envelope): exchange types, identity, exchange, envelope. */
import { z } from 'zod';
import { ClassificationLevelSchema } from '../classification-lattice';
import { TenantIdSchema, Timestamp, Uuid } from '../vocabulary';

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
