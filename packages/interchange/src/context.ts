/**
 * What one node (one agent's side of the protocol) is made of: its identity, keys and ports, and
 * the small steps both roles share — deciding through the DecisionEngine (fail closed), signing,
 * verifying and consuming an envelope, writing audit entries.
 */
import {
  type AgentIdentity,
  type AgentIdentityConfig,
  type AuditSink,
  type ClassificationLevel,
  type Clock,
  type Decision,
  type DecisionEngine,
  type ExchangeStore,
  type ExchangeType,
  errorOf,
  GovernanceError,
  knowsNode,
  type OrgDirectory,
  PolicyEngineUnreachableError,
  VerificationError,
} from '@agentgov/core';
import { type ExchangeAuditFacts, writeAudit } from './audit';
import type { AnswerError } from './automatic-answer';
import {
  type EnvelopeClaims,
  type EnvelopeVerificationError,
  MAX_ENVELOPE_LIFETIME_MS,
  signEnvelope,
  verifyEnvelope,
} from './envelope';
import {
  type AgentPolicyView,
  deriveAgentIdentity,
  type HumanAvailability,
  type HumanAvailabilityPort,
} from './identity';
import type { KeyResolver, ReplayGuard, SigningKey } from './keys';
import type { ExchangeMessageInput } from './message';
import type { RoundLimits } from './rounds';
import type { Transport } from './transport';

/** A query the agent may answer by itself. */
export interface IncomingQuery {
  exchangeId: string;
  round: number;
  exchangeType: ExchangeType;
  /** The sender: the user its key is bound to, org unit and team from this node's org directory. */
  from: { agentId: string; userId: string; orgUnit: string; team?: string };
  text: string;
  /** Only items at or below this node's ceiling (the rest never reach the agent). */
  items: { source: string; field: string; classification: ClassificationLevel; value: unknown }[];
  /** The ceiling of what the answer may carry (items above it are withheld on the way out). */
  ceiling: ClassificationLevel;
}

export interface NodeOptions {
  agentId: string;
  userId: string;
  tenantId: string;
  orgUnit: string;
  /** The `defaultAgentIdentity` configuration, already parsed (see parseAgentIdentityConfig). */
  identityConfig: AgentIdentityConfig;
  /** The user's effective agent-to-agent policy (narrows the identity); none when absent. */
  policy?: (tenantId: string, userId: string) => Promise<AgentPolicyView>;
  /** The human's availability (default: always online). */
  availability?: HumanAvailabilityPort;
  /** Availabilities in which an allowed information query is answered automatically (default online, away). */
  autoRespondWhen?: readonly HumanAvailability[];
  signingKey: SigningKey;
  /** Public keys of the other agents, each bound to the user its agent acts for. */
  keys: KeyResolver;
  /**
   * The tenant's org directory: the org unit and team of a sender (and of a responder this agent
   * asks) come from it, never from an envelope or a card. A user it does not place in an org is
   * refused (`policy_denied`, `sender_unknown` / `responder_unknown`).
   */
  directory: Pick<OrgDirectory, 'ancestry' | 'users' | 'children' | 'knows'>;
  replay?: ReplayGuard;
  store: ExchangeStore;
  audit: AuditSink;
  engine: DecisionEngine;
  transport: Transport;
  /**
   * The agent's automatic answer to an information query. Without it, every query waits for a
   * human; so does a query whose answer throws, takes longer than `answerTimeoutMs` or is no valid
   * message (see `onAnswerError`).
   */
  answer?: (query: IncomingQuery) => Promise<ExchangeMessageInput>;
  /** How long `answer` may take (default 5 s: the A2A client gives up on a round trip after 10 s). */
  answerTimeoutMs?: number;
  /** Told when `answer` fails (the round then waits for a human; the peer only hears that it failed). */
  onAnswerError?: (error: AnswerError) => void;
  /** Deployment round limits (one number, or per exchange type); policy and identities may lower them. */
  roundLimits?: RoundLimits;
  /** An exchange still in progress after this long expires (default 24 h). */
  ttlMs?: number;
  /** A human request still undecided after this long expires (default 1 h). */
  approvalTtlMs?: number;
  /** Lifetime of a signed envelope (default 60 s; at most `maxEnvelopeLifetimeMs`). */
  envelopeTtlMs?: number;
  /**
   * Longest lifetime of an envelope this node accepts (default 300 s, like caller tokens): a
   * longer `exp - iat`, or an `exp` beyond now + this + 30 s of skew, is refused (`lifetime_too_long`).
   */
  maxEnvelopeLifetimeMs?: number;
  /** The Exchange's `channel` (default `in-process`). */
  channel?: string;
  clock?: Clock;
}

/** Where a user sits, from the org directory. */
interface Placement {
  tenantId: string;
  userId: string;
  orgUnit: string;
  team?: string;
}

/** The verified sender of an envelope: agent and user from its key, org unit and team from the directory. */
export interface Sender extends Placement {
  agentId: string;
}

export interface NodeContext
  extends Required<
    Pick<NodeOptions, 'ttlMs' | 'approvalTtlMs' | 'envelopeTtlMs' | 'maxEnvelopeLifetimeMs' | 'channel'>
  > {
  options: NodeOptions;
  clock: Clock;
  replay: ReplayGuard;
  identity(signal?: AbortSignal): Promise<AgentIdentity>;
  me(): { tenantId: string; agentId: string; userId: string; orgUnit: string };
  decide(input: {
    exchangeType: ExchangeType;
    initiator: { tenantId: string; orgUnit: string };
    responder: { tenantId: string; orgUnit: string };
    level: ClassificationLevel;
    signal?: AbortSignal;
  }): Promise<Decision>;
  policyName(): string;
  sign(claims: Omit<EnvelopeClaims, 'jti' | 'iat' | 'exp'>): Promise<{ jws: string; claims: EnvelopeClaims }>;
  /** Verifies the envelope, then consumes its jti (only a valid envelope uses a nonce). */
  accept(jws: unknown, content: unknown, contextId?: string): Promise<EnvelopeClaims>;
  /** Where a user of this tenant sits (org directory), or undefined when not placed in an org. */
  placement(tenantId: string, userId: string): Promise<Placement | undefined>;
  /**
   * The sender of verified claims (same tenant): agent and user as verified (the user is the one
   * its key is bound to), org unit and team from the directory; `policy_denied` (`sender_unknown`)
   * when the directory does not place the user in an org.
   */
  sender(claims: EnvelopeClaims): Promise<Sender>;
  audit(
    facts: Omit<ExchangeAuditFacts, 'tenantId' | 'userId' | 'policyApplied'> & { policyApplied?: string },
  ): Promise<void>;
  nowIso(): string;
}

export function createNodeContext(options: NodeOptions, clock: Clock, replay: ReplayGuard): NodeContext {
  const me = {
    tenantId: options.tenantId,
    agentId: options.agentId,
    userId: options.userId,
    orgUnit: options.orgUnit,
  };
  if (options.signingKey.tenantId !== me.tenantId || options.signingKey.agentId !== me.agentId) {
    throw new Error(
      `the signing key belongs to ${options.signingKey.tenantId}/${options.signingKey.agentId}, not to this agent`,
    );
  }
  if (options.signingKey.userId !== undefined && options.signingKey.userId !== me.userId) {
    throw new Error(`the signing key acts for user ${options.signingKey.userId}, not for ${me.userId}`);
  }
  const maxEnvelopeLifetimeMs = options.maxEnvelopeLifetimeMs ?? MAX_ENVELOPE_LIFETIME_MS;
  const envelopeTtlMs = options.envelopeTtlMs ?? Math.min(60_000, maxEnvelopeLifetimeMs);
  if (!(maxEnvelopeLifetimeMs >= 1000) || !(envelopeTtlMs >= 1000) || envelopeTtlMs > maxEnvelopeLifetimeMs) {
    throw new Error(
      `envelopeTtlMs (${envelopeTtlMs}) must be between 1 s and maxEnvelopeLifetimeMs (${maxEnvelopeLifetimeMs})`,
    );
  }
  const { directory } = options;
  const ctx: NodeContext = {
    options,
    clock,
    replay,
    ttlMs: options.ttlMs ?? 24 * 3_600_000,
    approvalTtlMs: options.approvalTtlMs ?? 3_600_000,
    envelopeTtlMs,
    maxEnvelopeLifetimeMs,
    channel: options.channel ?? 'in-process',
    me: () => me,
    nowIso: () => isoTime(clock.now().getTime()),
    policyName: () => `${options.engine.name}:agent-to-agent`,
    async identity(signal) {
      const viewed = options.policy?.(me.tenantId, me.userId);
      const available = options.availability?.availability(me.tenantId, me.userId, signal ? { signal } : {});
      // Neither port configured: nothing to wait for (what Promise.all would give, without its promises).
      const [policy, availability] =
        viewed === undefined && available === undefined
          ? [undefined, undefined]
          : await Promise.all([viewed, available]);
      return deriveAgentIdentity({
        instanceId: me.agentId,
        ...me,
        config: options.identityConfig,
        ...(policy ? { policy } : {}),
        humanAvailability: availability ?? 'online',
      });
    },
    async decide({ exchangeType, initiator, responder, level, signal }) {
      let decided: Awaited<ReturnType<DecisionEngine['decide']>>;
      try {
        decided = await options.engine.decide(
          {
            domain: 'agent-to-agent',
            tenantId: me.tenantId,
            userId: me.userId,
            input: {
              exchange_type: exchangeType,
              initiator_tenant_id: initiator.tenantId,
              responder_tenant_id: responder.tenantId,
              initiator_org_unit: initiator.orgUnit,
              responder_org_unit: responder.orgUnit,
              classification_level: level,
            },
          },
          signal ? { signal } : {},
        );
      } catch (error) {
        throw new PolicyEngineUnreachableError(undefined, error);
      }
      if (decided.isErr()) throw decided.error;
      return decided.value;
    },
    sign: (claims) =>
      signEnvelope(options.signingKey, claims, { nowMs: clock.now().getTime(), ttlMs: ctx.envelopeTtlMs }),
    async accept(jws, content, contextId) {
      const nowMs = clock.now().getTime();
      const verified = await verifyEnvelope(jws, options.keys, {
        audience: { tenantId: me.tenantId, agentId: me.agentId },
        content,
        nowMs,
        maxLifetimeMs: maxEnvelopeLifetimeMs,
        ...(contextId !== undefined ? { contextId } : {}),
      });
      if (verified.isErr()) throw envelopeError(verified.error);
      const claims = verified.value;
      if (!(await replay.consume(claims.jti, claims.exp * 1000 + 30_000, nowMs))) {
        throw envelopeError(new VerificationError('replayed', 'the envelope was already used'));
      }
      return claims;
    },
    async placement(tenantId, userId) {
      const user = { scope: 'user', scopeId: userId } as const;
      let chain: Awaited<ReturnType<OrgDirectory['ancestry']>>;
      try {
        // knowsNode reads only; it never places.
        if (!(await knowsNode(directory as OrgDirectory, tenantId, user))) return undefined;
        chain = await directory.ancestry(tenantId, user);
      } catch (error) {
        throw new GovernanceError('service_unavailable', 'The org directory is unavailable', {
          cause: error,
        });
      }
      const orgUnit = chain.find((n) => n.scope === 'org')?.scopeId;
      if (!orgUnit) return undefined;
      const team = chain.find((n) => n.scope === 'team')?.scopeId;
      return { tenantId, userId, orgUnit, ...(team ? { team } : {}) };
    },
    async sender(claims) {
      const { tenantId, agentId, userId } = claims.from;
      const placed = await ctx.placement(tenantId, userId);
      if (!placed)
        throw policyDenied('the sender is not placed in an org unit of the org directory', {
          reason: 'sender_unknown',
        });
      return { ...placed, agentId };
    },
    // The node's tenant and user, and its policy unless the facts name another (no copy of the facts).
    audit: (facts) =>
      writeAudit(options.audit, facts, {
        tenantId: me.tenantId,
        userId: me.userId,
        policyApplied: facts.policyApplied ?? ctx.policyName(),
      }),
  };
  return ctx;
}

let minuteStart = Number.NaN;
let minutePrefix = '';
const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);
const pad3 = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

/**
 * `new Date(ms).toISOString()` — for a time value in the minute of the last one formatted, without
 * V8's formatter (several times its cost, four times per round trip): that minute's
 * `YYYY-MM-DDTHH:mm:` with the seconds and milliseconds appended (a minute of time values is always
 * 60,000 ms: no leap seconds). Accept-only: anything else (another minute, a year outside
 * 0000–9999, a fraction, NaN) goes through `toISOString`, its RangeError included;
 * test/iso-time.test.ts checks that both give the same string.
 */
export function isoTime(ms: number): string {
  const rest = ms - minuteStart;
  if (rest >= 0 && rest < 60_000 && Number.isInteger(rest)) {
    const seconds = Math.floor(rest / 1000);
    return `${minutePrefix}${pad2(seconds)}.${pad3(rest - seconds * 1000)}Z`;
  }
  const iso = new Date(ms).toISOString();
  if (iso.length === 24 && Number.isInteger(ms)) {
    minuteStart = ms - (((ms % 60_000) + 60_000) % 60_000);
    minutePrefix = iso.slice(0, 17);
  }
  return iso;
}

/** An envelope refusal as the spec's error body: invalid_token with the reason in detail. */
function envelopeError(error: EnvelopeVerificationError): GovernanceError {
  return errorOf('invalid_token', `Exchange envelope rejected: ${error.message}`, { reason: error.reason });
}

/** A policy refusal with its reason in detail. */
export const policyDenied = (reason: string, detail: Record<string, unknown> = {}): GovernanceError =>
  errorOf('policy_denied', `Policy denies the exchange: ${reason}`, { reason, ...detail });
