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
  FEATURE_NAMES,
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
  levelFloor,
  mapOf,
  numericMax,
  numericMin,
  object,
  obligation,
  ordinal,
} from './lattice';

/** Action autonomy, from the most permissive to the most restrictive. */
export const ACTION_MODES = ACTION_AUTONOMY;
export type ActionMode = (typeof ACTION_MODES)[number];
/** Rules for data crossing org units, per classification level (deny is the stricter). */
export const CROSS_ORG_RULES = ['allow', 'deny'] as const;
/** Highest accepted `max_rounds` of one exchange type. */
export const MAX_ROUNDS_LIMIT = 100;
/** Why `cross_enterprise: true` is refused. */
export const CROSS_ENTERPRISE_NEVER =
  'cross_enterprise: true cannot enable cross-tenant exchange: the spec always blocks it (CROSS_ENTERPRISE_BLOCKED) and no policy can override that; write false or leave the key out';

export const AGENT_TO_AGENT = object(
  {
    enabled: grant(),
    allowed_exchange_types: allowList(EXCHANGE_TYPES, { single: true }),
    max_classification_shared: level(),
    max_rounds: mapOf('exchange type', EXCHANGE_TYPES, numericMax(1, MAX_ROUNDS_LIMIT), {
      shorthand: { kind: 'each' },
    }),
    cross_org: mapOf('classification level', CLASSIFICATION_LEVELS, ordinal(CROSS_ORG_RULES), {
      shorthand: { kind: 'threshold', allow: 'allow', deny: 'deny' },
    }),
    cross_enterprise: grant({ never: CROSS_ENTERPRISE_NEVER }),
  },
  {
    docs: {
      enabled: 'Agent-to-agent exchange is allowed at all (default: disabled until a policy enables it).',
      allowed_exchange_types: 'The exchange types agents may start.',
      max_classification_shared: 'The highest classification level an agent may share in an exchange.',
      max_rounds:
        'Most rounds of an exchange: one number for every exchange type, or a map per exchange type (1-100; default 3).',
      cross_org:
        'Exchanges between different org units: true (allow), false (deny), a classification level (allow up to it, deny above) or a map from level to allow|deny.',
      cross_enterprise:
        'Always false: cross-tenant exchange is blocked and no policy can enable it (CROSS_ENTERPRISE_BLOCKED).',
    },
  },
);

export const INTEGRATIONS = object(
  {
    connectors: mapOf(
      'connector type',
      CONNECTOR_TYPES,
      object(
        {
          enabled: grant(),
          permissions: allowList(CONNECTOR_PERMISSIONS, { single: true }),
          max_classification: level(),
        },
        {
          docs: {
            enabled: 'The connector may be used.',
            permissions: 'What the connector may do: read, write, admin (one, or a list).',
            max_classification: 'The highest classification level the connector may carry.',
          },
        },
      ),
    ),
    actions: mapOf(
      'action',
      undefined,
      object({
        allowed: grant(),
        target_systems: allowList(undefined, { single: true }),
        sources: allowList(undefined, { single: true }),
        triggers: allowList(undefined, { single: true }),
      }),
    ),
  },
  {
    docs: {
      connectors: 'Per connector type (mail, calendar, tracker, codehost, drive).',
      actions: 'Integration actions (tracker_update, tracker_transition…) and when they are allowed.',
    },
  },
);

export const MODELS = object(
  {
    allowed_providers: allowList(undefined, { single: true }),
    allowed_models: allowList(undefined, { single: true }),
    denied_models: denyList(undefined, { single: true }),
    allowed_classifications: allowList(CLASSIFICATION_LEVELS),
    max_classification: level(),
    /** The only models that may receive confidential or restricted data (unset = any allowed model). */
    sensitive_data_models: allowList(undefined, { single: true }),
  },
  {
    aliases: { sensitive_data_model: 'sensitive_data_models' },
    docs: {
      allowed_providers: 'The model providers that may be called.',
      allowed_models: 'The models that may be called (unset: any model of an allowed provider).',
      denied_models: 'Models that may never be called.',
      allowed_classifications: 'The classification levels of data that may be sent to a model.',
      max_classification: 'The highest classification level of data that may be sent to a model.',
      sensitive_data_models:
        'The only models that may receive confidential or restricted data (one model, or a list).',
    },
  },
);

export const ACTIONS = object(
  {
    /** The autonomy of each tool. */
    actions: mapOf('tool', undefined, ordinal(ACTION_MODES)),
    /** The autonomy of a tool with no `actions.<tool>` entry (unset: such tools are denied). */
    default_autonomy: ordinal(ACTION_MODES),
    /** Tools that are blocked whatever `actions` says (lower-case names, as `actions`' keys). */
    blocked: denyList(undefined, { single: true, names: true }),
  },
  {
    aliases: { tools: 'actions' },
    docs: {
      actions: 'The autonomy of each tool: autonomous, notify, approve or block.',
      default_autonomy: 'The autonomy of a tool with no entry in actions (unset: such tools are denied).',
      blocked: 'Tools that are blocked whatever actions says.',
    },
  },
);

/**
 * Feature flags the assistants know (core's `FEATURE_NAMES`, the names a `features` decision is
 * asked about); any other flag name is accepted too.
 */
export const KNOWN_FEATURES = FEATURE_NAMES;

/** A feature flag: on (`true`) or off; any name of letters, digits, `_ . -`. */
export const FEATURES = mapOf('feature flag', undefined, grant(), {
  keyPattern: '^[A-Za-z][A-Za-z0-9_.-]*$',
  known: KNOWN_FEATURES,
});

/** Largest retention, in days (100 years). */
export const MAX_RETENTION_DAYS = 36_500;

export const DATA = object(
  {
    external_sharing_max: level(),
    classification_overrides: mapOf('data source', undefined, levelFloor(), {
      keyPattern: '^[A-Za-z0-9_*][A-Za-z0-9_.:/@*-]*$',
    }),
    retention: mapOf('data category', undefined, numericMax(1, MAX_RETENTION_DAYS), {
      shorthand: { kind: 'key', key: 'default' },
    }),
    denied_destinations: denyList(undefined, { single: true }),
  },
  {
    aliases: { retention_days: 'retention' },
    docs: {
      external_sharing_max: 'The highest classification level of data that may be shared outside the tenant.',
      classification_overrides:
        'The level some data is at least treated as, per source (a lower scope can only raise it).',
      retention:
        'How long data is kept, in days: one number (the default) or a map per data category (a lower scope can only shorten it).',
      denied_destinations: 'Destinations data may never be shared with.',
    },
  },
);

export const AUDIT = object(
  {
    log_all_actions: obligation(),
    retention_years: numericMin(1, 100),
    export_roles: allowList(ROLES, { single: true }),
  },
  {
    docs: {
      log_all_actions:
        'Every action is audited, not only significant ones (a lower scope cannot turn it off).',
      retention_years: 'How long audit entries are kept (a lower scope can only lengthen it).',
      export_roles: 'The roles that may export the audit log.',
    },
  },
);

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
