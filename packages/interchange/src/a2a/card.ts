/**
 * The governed AgentCard: governance declared as a required A2A extension whose params publish
 * the agent's interchange identity, signed (JWS over the RFC 8785 canonical card, the SDK's
 * `generateAgentCardSignature`) with the agent's key; and the verification a client runs before
 * sending anything: exactly one signature, by the key of the agent it expects, over a card that
 * declares the extension as required and whose identity matches the signer.
 */
import { AgentCard, generateAgentCardSignature, verifyAgentCardSignature } from '@a2a-js/sdk';
import {
  ClassificationLevelSchema,
  ExchangeTypeSchema,
  err,
  type Logger,
  ok,
  type Result,
  silentLogger,
  VerificationError,
} from '@agentgov/core';
import { z } from 'zod';
import { type KeyResolver, keyId, parseKeyId, type SigningKey } from '../keys';
import type { PeerInfo } from '../transport';
import { routeSdkConsole } from './console';
import { GOVERNANCE_EXTENSION_URI } from './wire';

export const GovernanceParamsSchema = z.object({
  protocolVersion: z.literal('1.0'),
  tenantId: z.string().min(1),
  agentId: z.string().min(1),
  userId: z.string().min(1),
  orgUnit: z.string().min(1),
  canReceiveQueries: z.boolean(),
  supportedExchangeTypes: z.array(ExchangeTypeSchema),
  maxClassificationShared: ClassificationLevelSchema,
  maxRoundsAccepted: z.number().int().min(1),
});

export async function buildGovernedCard(input: {
  peer: PeerInfo;
  url: string;
  name?: string;
  description?: string;
  signingKey: SigningKey;
}): Promise<AgentCard> {
  const { peer } = input;
  const card = AgentCard.fromJSON({
    name: input.name ?? `${peer.userId}'s assistant`,
    description:
      input.description ??
      `Governed assistant of ${peer.userId} (${peer.tenantId}); every message is AI-generated and governed by the interchange protocol.`,
    supportedInterfaces: [{ url: input.url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    version: '1.0.0',
    capabilities: {
      // SSE: SendStreamingMessage (governed like SendMessage) and SubscribeToTask
      streaming: true,
      pushNotifications: false,
      extensions: [
        {
          uri: GOVERNANCE_EXTENSION_URI,
          description:
            'agentgov interchange protocol: a signed envelope on every message; refusals are JSON-RPC errors naming the reason',
          required: true,
          params: { protocolVersion: '1.0', ...peer },
        },
      ],
    },
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json'],
    skills: [
      {
        id: 'interchange',
        name: 'Governed exchange',
        description:
          'Information queries, meeting scheduling and commitment requests under the interchange protocol',
        tags: ['governed', 'interchange'],
      },
    ],
  });
  const sign = generateAgentCardSignature(input.signingKey.privateKey, {
    alg: input.signingKey.alg,
    kid: keyId(input.signingKey.tenantId, input.signingKey.agentId),
    typ: 'JOSE',
  });
  return sign(card);
}

/** Why an agent card was refused. */
export type CardRejection =
  | 'card_malformed'
  | 'card_unsigned'
  | 'card_signature_invalid'
  | 'card_not_governed'
  | 'card_identity_mismatch';

/** A refused card: a `VerificationError` whose `reason` is a `CardRejection`. */
export type CardVerificationError = VerificationError<CardRejection>;
/** @deprecated `verifyGovernedCard` answers a `Result`; its error is a `CardVerificationError`. */
export type CardRejectedError = CardVerificationError;

/** A verified card and the peer it publishes. */
export interface VerifiedCard {
  card: AgentCard;
  peer: PeerInfo;
}

const reject = (reason: CardRejection, message: string): Result<never, CardVerificationError> =>
  err(new VerificationError(reason, message));

/**
 * Verifies a card (JSON as served) expected to belong to `agentId`; answers the peer it publishes.
 * Never throws for anything in the card: a refusal is a `CardVerificationError`. What the SDK
 * writes to `console` meanwhile (a failed signature's stack) goes to `options.logger` at debug
 * level (default: nowhere), never to the process's stderr: a hostile peer cannot fill its logs.
 */
export async function verifyGovernedCard(
  json: unknown,
  agentId: string,
  keys: KeyResolver,
  options: { logger?: Logger } = {},
): Promise<Result<VerifiedCard, CardVerificationError>> {
  let card: AgentCard;
  try {
    card = AgentCard.fromJSON(json);
  } catch {
    return reject('card_malformed', 'the agent card is not a valid AgentCard');
  }
  if (card.signatures.length !== 1)
    return reject('card_unsigned', 'the agent card must carry exactly one signature');
  let signer: { tenantId: string; agentId: string; userId: string | undefined } | undefined;
  const unroute = routeSdkConsole(options.logger ?? silentLogger);
  try {
    await verifyAgentCardSignature(async (kid) => {
      const id = parseKeyId(kid);
      if (!id || id.agentId !== agentId) throw new Error('not the expected agent');
      const bound = await keys.publicKey(id.tenantId, id.agentId);
      if (!bound?.key) throw new Error('unknown key');
      signer = { ...id, userId: bound.userId };
      return bound.key as never;
    })(card);
  } catch {
    return reject('card_signature_invalid', `the agent card is not signed by ${agentId}`);
  } finally {
    unroute();
  }
  const ext = card.capabilities?.extensions.find((e) => e.uri === GOVERNANCE_EXTENSION_URI);
  if (!ext?.required)
    return reject('card_not_governed', 'the agent card does not require the governance extension');
  const params = GovernanceParamsSchema.safeParse(ext.params);
  if (!params.success) return reject('card_malformed', 'the governance extension params are invalid');
  const { protocolVersion: _v, ...peer } = params.data;
  // The user the card names must be the one the signing key is bound to (none bound: refused).
  if (
    !signer ||
    peer.tenantId !== signer.tenantId ||
    peer.agentId !== signer.agentId ||
    peer.userId !== signer.userId
  ) {
    return reject('card_identity_mismatch', 'the card publishes another identity than its signer');
  }
  return ok({ card, peer });
}
