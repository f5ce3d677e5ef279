/**
 * `@agentgov/interchange/a2a`: the interchange protocol over A2A (`@a2a-js/sdk`): a governed
 * server (signed AgentCard declaring the required governance extension, a gate in front of the
 * SDK's request handler) and a Transport for InterchangeNode that verifies cards before sending.
 */

export {
  CALLER_JWS_TYPE,
  type Caller,
  type CallerRejection,
  type CallerVerificationError,
  callerToken,
  type VerifiedCaller,
  verifyCallerToken,
} from './caller';
export {
  buildGovernedCard,
  type CardRejectedError,
  type CardRejection,
  type CardVerificationError,
  GovernanceParamsSchema,
  type VerifiedCard,
  verifyGovernedCard,
} from './card';
export { A2ATransport, type A2ATransportOptions } from './client';
export { routeSdkConsole } from './console';
export { type A2AServerOptions, type GovernedA2AServer, startA2AServer } from './server';
export {
  type EnvelopeMetadata,
  EXCHANGE_MEDIA_TYPE,
  fromWireMessage,
  GOVERNANCE_ERRORS,
  GOVERNANCE_EXTENSION_URI,
  type JsonRpcError,
  readWireMessage,
  toWireMessage,
  type WireMessage,
} from './wire';
