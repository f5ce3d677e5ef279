/**
 * AgentIdentity, derived at runtime (spec: AgentIdentity): the `interchange` integration's
 * `defaultAgentIdentity` JSON (the spec's defaults fill missing fields), narrowed by the user's
 * effective agent-to-agent policy (the stricter value wins, as in the policy lattice), and the
 * human's availability from a port. Malformed configuration is an error naming the integration,
 * never a silent default.
 */
import {
  type AgentIdentity,
  type AgentIdentityConfig,
  AgentIdentityConfigSchema,
  type ClassificationLevel,
  EXCHANGE_TYPES,
  type ExchangeType,
  type HUMAN_AVAILABILITY,
  minClassification,
} from '@agentgov/core';

export type HumanAvailability = (typeof HUMAN_AVAILABILITY)[number];

/** Where a user's availability comes from (presence service, calendar, chat status…). */
export interface HumanAvailabilityPort {
  availability(
    tenantId: string,
    userId: string,
    options?: { signal?: AbortSignal },
  ): Promise<HumanAvailability>;
}

/** A fixed availability (tests, demos, single-user runtimes). */
export const fixedAvailability = (value: HumanAvailability): HumanAvailabilityPort => ({
  availability: async () => value,
});

/** An integration entry as deployments configure it: a type and its config object. */
export interface IntegrationEntry {
  type: string;
  config?: Record<string, unknown>;
}

/** The integration type of the interchange protocol (spec: naming note). */
export const INTERCHANGE_INTEGRATION = 'interchange';

/** A configuration problem: names the integration and the key, and says what is wrong. */
export class InterchangeConfigError extends Error {
  readonly integration = INTERCHANGE_INTEGRATION;
  readonly key = 'defaultAgentIdentity';
  constructor(problem: string, options?: { cause?: unknown }) {
    super(`integration "${INTERCHANGE_INTEGRATION}", key "defaultAgentIdentity": ${problem}`, options);
    this.name = 'InterchangeConfigError';
  }
}

/**
 * Parses the `defaultAgentIdentity` JSON string (or the integration list that holds it). No
 * entry or no key → the spec's defaults; anything malformed → InterchangeConfigError.
 */
export function parseAgentIdentityConfig(
  source: string | undefined | readonly IntegrationEntry[],
): AgentIdentityConfig {
  let raw: unknown;
  if (typeof source === 'string' || source === undefined) raw = source;
  else {
    const entries = source.filter((e) => e.type === INTERCHANGE_INTEGRATION);
    if (entries.length > 1) throw new InterchangeConfigError('more than one integration entry of this type');
    raw = entries[0]?.config?.defaultAgentIdentity;
  }
  if (raw === undefined) return AgentIdentityConfigSchema.parse({});
  if (typeof raw !== 'string') throw new InterchangeConfigError(`must be a JSON string, got ${typeof raw}`);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw new InterchangeConfigError(`malformed JSON (${(error as Error).message})`, { cause: error });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InterchangeConfigError('must be a JSON object');
  }
  const parsed = AgentIdentityConfigSchema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new InterchangeConfigError(problems.join('; '), { cause: parsed.error });
  }
  return parsed.data;
}

/** The parts of a user's effective agent-to-agent policy that narrow the identity. */
export interface AgentPolicyView {
  enabled?: boolean;
  allowed_exchange_types?: readonly ExchangeType[];
  max_classification_shared?: ClassificationLevel;
  /** Per exchange type, or one number for all types. */
  max_rounds?: number | Partial<Record<ExchangeType, number>>;
}

export interface AgentIdentityInput {
  instanceId: string;
  userId: string;
  tenantId: string;
  orgUnit: string;
  config: AgentIdentityConfig;
  policy?: AgentPolicyView;
  humanAvailability?: HumanAvailability;
}

/** The identity of one agent now: configuration narrowed by policy (never widened). */
export function deriveAgentIdentity(input: AgentIdentityInput): AgentIdentity {
  const { config, policy = {} } = input;
  const types = config.supportedExchangeTypes.filter(
    (t) => policy.allowed_exchange_types === undefined || policy.allowed_exchange_types.includes(t),
  );
  const policyRounds = policy.max_rounds;
  const roundCap =
    policyRounds === undefined
      ? undefined
      : typeof policyRounds === 'number'
        ? policyRounds
        : Math.max(0, ...EXCHANGE_TYPES.map((t) => policyRounds[t] ?? 0)) || undefined;
  return {
    instanceId: input.instanceId,
    userId: input.userId,
    tenantId: input.tenantId,
    orgUnit: input.orgUnit,
    canReceiveQueries: config.canReceiveQueries,
    canAutoRespond: config.canAutoRespond,
    // Whatever the configuration says: a human must approve any commitment.
    canMakeCommitments: false,
    maxClassificationShared: policy.max_classification_shared
      ? minClassification(config.maxClassificationShared, policy.max_classification_shared)
      : config.maxClassificationShared,
    supportedExchangeTypes: [...new Set(types)],
    maxRoundsAccepted:
      roundCap === undefined ? config.maxRoundsAccepted : Math.min(config.maxRoundsAccepted, roundCap),
    humanAvailability: input.humanAvailability ?? 'online',
  };
}
