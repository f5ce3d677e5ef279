/**
 * Non-storage ports: the policy decision engine, the instance registry, the org directory and the
 * tracker client. Implementations live in the packages that own the behaviour.
 */
import type { Result } from 'neverthrow';
import { z } from 'zod';
import { type ClassificationLevel, ClassificationLevelSchema } from '../classification';
import type { PolicyEngineUnreachableError } from '../errors';
import { ExchangeTypeSchema } from '../resources';
import type { CallOptions, ScopeRef } from './stores';

// ---------------------------------------------------------------------------------------------
// Decision engine (spec: "Policy evaluation inputs and outputs")

export const DECISION_DOMAINS = ['agent-to-agent', 'integrations'] as const;
export type DecisionDomain = (typeof DECISION_DOMAINS)[number];

export const AgentToAgentInputSchema = z.object({
  exchange_type: ExchangeTypeSchema,
  initiator_tenant_id: z.string().min(1),
  responder_tenant_id: z.string().min(1),
  initiator_org_unit: z.string().min(1),
  responder_org_unit: z.string().min(1),
  classification_level: ClassificationLevelSchema,
});
export type AgentToAgentInput = z.infer<typeof AgentToAgentInputSchema>;

export const IntegrationsInputSchema = z.object({
  action: z.string().min(1),
  context: z.object({
    targetSystem: z.string().min(1),
    additional: z.looseObject({ source: z.string().optional(), trigger: z.string().optional() }).default({}),
  }),
});
export type IntegrationsInput = z.infer<typeof IntegrationsInputSchema>;

export type DecisionRequest =
  | { domain: 'agent-to-agent'; tenantId: string; userId?: string; input: AgentToAgentInput }
  | { domain: 'integrations'; tenantId: string; userId?: string; input: IntegrationsInput };

export interface DecisionConstraints {
  max_rounds?: number;
  max_classification_shared?: ClassificationLevel;
}

export interface Decision {
  allow: boolean;
  deny: boolean;
  reason: string;
  constraints: DecisionConstraints;
}

export interface DecisionEngine {
  /** Name shown in /status and audit (`builtin`, `opa`). */
  readonly name: string;
  /**
   * Decides for the effective policy of `userId` (or of the tenant's enterprise scope when absent).
   * Unreachable engines fail closed: an `err(PolicyEngineUnreachableError)`, never an allow.
   */
  decide(
    request: DecisionRequest,
    options?: CallOptions,
  ): Promise<Result<Decision, PolicyEngineUnreachableError>>;
  /** True when the engine can answer now. */
  health(options?: CallOptions): Promise<boolean>;
}

// ---------------------------------------------------------------------------------------------
// Instance registry: which gateway processes sharing the stores are alive (`gatewayInstances`).

/**
 * Live server processes, from a heartbeat each process writes periodically. An instance is live
 * while its last heartbeat has not expired. Implementations: memory (one process), Redis
 * (`@agentgov/gateway`), SQL (`@agentgov/store-kysely`).
 */
export interface InstanceRegistry {
  /** Records that `instanceId` is alive until `now + ttlMs` (replacing its previous expiry). */
  heartbeat(instanceId: string, now: Date, ttlMs: number): Promise<void>;
  /** Number of instances whose last heartbeat expires strictly after `now`. */
  countLive(now: Date): Promise<number>;
  /** Removes the instance (clean shutdown); removing an unknown instance is a no-op. */
  remove(instanceId: string): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Org directory: which users are in which team, which teams in which org, in one tenant.

export interface UserPlacement {
  orgUnit?: string | undefined;
  team?: string | undefined;
}

export interface OrgDirectory {
  /**
   * The chain of scope nodes from the enterprise (scopeId = tenant id) down to and including
   * `node`, e.g. [enterprise acme, org eng, team platform, user alice]. Nodes the directory does
   * not know are placed directly under the enterprise (a user with no known team under their
   * org if known, else under the enterprise).
   */
  ancestry(tenantId: string, node: ScopeRef): Promise<ScopeRef[]>;
  /** Direct children of a node: orgs of the enterprise, teams of an org, users of a team. */
  children(tenantId: string, node: ScopeRef): Promise<ScopeRef[]>;
  /** Records where a user sits (learned from ID-token claims `org_unit` and `team`). */
  place(tenantId: string, userId: string, placement: UserPlacement): Promise<void>;
  /** Users known in the tenant, optionally only those inside an org or a team. */
  users(tenantId: string, within?: ScopeRef): Promise<string[]>;
}

// ---------------------------------------------------------------------------------------------
// Tracker client: the work-tracking plugin's writes to an issue tracker.

export interface TrackerTicket {
  key: string;
  title: string;
  status: string;
  url?: string;
}

export interface TrackerClient {
  getTicket(key: string, options?: CallOptions): Promise<TrackerTicket | undefined>;
  /** Adds a comment and/or sets fields on a ticket. */
  updateTicket(
    key: string,
    update: { comment?: string; fields?: Record<string, unknown> },
    options?: CallOptions,
  ): Promise<void>;
  /** Moves a ticket through a named transition (e.g. the tracker's `defaultMergeTransition`). */
  transition(key: string, transitionName: string, options?: CallOptions): Promise<void>;
}
