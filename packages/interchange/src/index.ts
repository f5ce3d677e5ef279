/**
 * `@agentgov/interchange`: governed agent-to-agent exchanges (spec: "What the service does" item 6,
 * AgentIdentity, Exchange, the envelope, "Agent-to-agent exchange behavior"). The domain has no
 * I/O of its own: stores, clock, decisions, human availability, keys and transport are ports.
 * `./a2a` carries it over the A2A protocol; `./gateway` is the routes plugin for humans.
 */
export { type ExchangeAuditFacts, type ExchangeEvent, exchangeAuditEntry } from './audit';
export { type AnswerError, type AnswerFailure, DEFAULT_ANSWER_TIMEOUT_MS } from './automatic-answer';
export type { IncomingQuery, NodeOptions } from './context';
export {
  EXCHANGE_ADMIN_ROLES,
  exchangeVisibility,
  type HumanDecisionInput,
  isExchangeAdmin,
  listExchanges,
  readExchange,
  recordHumanDecision,
  type Viewer,
} from './desk';
export {
  AI_DISCLOSURE_LABEL,
  buildEnvelope,
  contentDigest,
  type EnvelopeClaims,
  EnvelopeClaimsSchema,
  type EnvelopeRejectedError,
  type EnvelopeRejection,
  type EnvelopeVerificationError,
  MAX_ENVELOPE_BYTES,
  MAX_ENVELOPE_LIFETIME_MS,
  signEnvelope,
  verifyEnvelope,
} from './envelope';
export {
  CLASSIFICATION_EXCEEDED,
  type FilterResult,
  filterByClassification,
  highestLevel,
  summarizeShared,
  summarizeWithheld,
  type WithheldItem,
} from './filter';
export {
  type AgentIdentityInput,
  type AgentPolicyView,
  deriveAgentIdentity,
  fixedAvailability,
  type HumanAvailability,
  type HumanAvailabilityPort,
  INTERCHANGE_INTEGRATION,
  type IntegrationEntry,
  InterchangeConfigError,
  parseAgentIdentityConfig,
} from './identity';
export type { MessageType, QueryInput, RoundResult } from './initiator';
export {
  type AgentJwk,
  type AgentKey,
  type AgentKeyPair,
  generateAgentKeys,
  InMemoryReplayGuard,
  type KeyResolver,
  KeyRing,
  keyId,
  parseKeyId,
  type ReplayGuard,
  type SigningKey,
  signingKeyFromJwk,
  type VerifyKey,
} from './keys';
export {
  type ClassifiedItem,
  ClassifiedItemSchema,
  type Commitment,
  CommitmentSchema,
  type ExchangeMessage,
  type ExchangeMessageInput,
  ExchangeMessageSchema,
} from './message';
export { InterchangeNode } from './node';
export { pendingApproval, type TranscriptEntry } from './record';
export type { ReceiveOptions } from './responder';
export { EXAMPLE_ROUND_LIMITS, effectiveMaxRounds, type RoundLimits, roundLimitFor } from './rounds';
export {
  type CollectRequest,
  type Delivery,
  type DeliveryResult,
  InProcessNetwork,
  type PeerInfo,
  type Receiver,
  type Transport,
} from './transport';
