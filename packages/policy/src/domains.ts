/**
 * The content of a policy, per domain, as lattice descriptions: adding a key is one line here.
 * The zod schemas, the order, the meet and the hierarchy violations all derive from these.
 */
import {
  ACTION_AUTONOMY,
  CLASSIFICATION_LEVELS,
  CONNECTOR_PERMISSIONS,
  CONNECTOR_TYPES,
  EXCHANGE_TYPES,
  type PolicyDomain,
  ROLES,
} from '@agentgov/core';
import {
  allowList,
  type ContentOf,
  denyList,
  grant,
  type LatticeNode,
  level,
  mapOf,
  numericMax,
  numericMin,
  object,
  ordinal,
} from './lattice';

/** Action autonomy, from the most permissive to the most restrictive. */
export const ACTION_MODES = ACTION_AUTONOMY;
export type ActionMode = (typeof ACTION_MODES)[number];
/** Rules for data crossing org units, per classification level (deny is the stricter). */
export const CROSS_ORG_RULES = ['allow', 'deny'] as const;
/** Highest accepted `max_rounds` of one exchange type. */
export const MAX_ROUNDS_LIMIT = 100;

export const AGENT_TO_AGENT = object({
  enabled: grant(),
  allowed_exchange_types: allowList(EXCHANGE_TYPES),
  max_classification_shared: level(),
  max_rounds: mapOf('exchange type', EXCHANGE_TYPES, numericMax(1, MAX_ROUNDS_LIMIT), { shorthand: true }),
  cross_org: mapOf('classification level', CLASSIFICATION_LEVELS, ordinal(CROSS_ORG_RULES)),
});

export const INTEGRATIONS = object({
  connectors: mapOf(
    'connector type',
    CONNECTOR_TYPES,
    object({
      enabled: grant(),
      permissions: allowList(CONNECTOR_PERMISSIONS),
      max_classification: level(),
    }),
  ),
  actions: mapOf(
    'action',
    undefined,
    object({
      allowed: grant(),
      target_systems: allowList(),
      sources: allowList(),
      triggers: allowList(),
    }),
  ),
});

export const MODELS = object({
  allowed_providers: allowList(),
  allowed_models: allowList(),
  denied_models: denyList(),
  allowed_classifications: allowList(CLASSIFICATION_LEVELS),
  max_classification: level(),
  /** The only models that may receive confidential or restricted data (unset = any allowed model). */
  sensitive_data_models: allowList(),
});

export const ACTIONS = object({
  tools: mapOf('tool', undefined, ordinal(ACTION_MODES)),
  /** The autonomy of a tool with no `tools.<tool>` entry (unset: such tools are denied). */
  default_autonomy: ordinal(ACTION_MODES),
  /** Tools that are blocked whatever `tools` says. */
  blocked: denyList(),
});

export const FEATURES = object({
  briefings: grant(),
  task_discovery: grant(),
  standup_summary: grant(),
  auto_response: grant(),
  ai_reclassification: grant(),
  web_ui: grant(),
});

export const DATA = object({
  external_sharing_max: level(),
  retention_days: numericMax(1, 36_500),
  denied_destinations: denyList(),
});

export const AUDIT = object({
  retention_years: numericMin(1, 100),
  export_roles: allowList(ROLES),
});

/** The lattice description of every domain. */
export const DOMAIN_LATTICES = {
  'agent-to-agent': AGENT_TO_AGENT,
  integrations: INTEGRATIONS,
  models: MODELS,
  actions: ACTIONS,
  features: FEATURES,
  data: DATA,
  audit: AUDIT,
} as const satisfies Record<PolicyDomain, LatticeNode>;

export type AgentToAgentPolicy = ContentOf<typeof AGENT_TO_AGENT>;
export type IntegrationsPolicy = ContentOf<typeof INTEGRATIONS>;
export type ModelsPolicy = ContentOf<typeof MODELS>;
export type ActionsPolicy = ContentOf<typeof ACTIONS>;
export type FeaturesPolicy = ContentOf<typeof FEATURES>;
export type DataPolicy = ContentOf<typeof DATA>;
export type AuditPolicy = ContentOf<typeof AUDIT>;

/** The parsed content type of each domain. */
export interface PolicyContentByDomain {
  'agent-to-agent': AgentToAgentPolicy;
  integrations: IntegrationsPolicy;
  models: ModelsPolicy;
  actions: ActionsPolicy;
  features: FeaturesPolicy;
  data: DataPolicy;
  audit: AuditPolicy;
}
export type PolicyContent = PolicyContentByDomain[PolicyDomain];
