/**
 * Input documents of the decision engine (spec: "Policy evaluation inputs and outputs"). The spec
 * tabulates agent-to-agent and integrations; models, actions, data and features follow the same
 * style (tables in the policy README). `DecisionRequestSchema` checks a whole request at runtime.
 */
import { z } from 'zod';
import { ClassificationLevelSchema } from '../classification-lattice';
import { ExchangeTypeSchema } from '../exchange/schema';

export const DECISION_DOMAINS = [
  'agent-to-agent',
  'integrations',
  'models',
  'actions',
  'data',
  'features',
] as const;
export type DecisionDomain = (typeof DECISION_DOMAINS)[number];
export const DecisionDomainSchema = z.enum(DECISION_DOMAINS);

/** Autonomy of a tool, from the most permissive to the most restrictive. */
export const ACTION_AUTONOMY = ['autonomous', 'notify', 'approve', 'block'] as const;
export type ActionAutonomy = (typeof ACTION_AUTONOMY)[number];
export const ActionAutonomySchema = z.enum(ACTION_AUTONOMY);

/** The features a `features` policy switches on or off. */
export const FEATURE_NAMES = [
  'briefings',
  'task_discovery',
  'standup_summary',
  'auto_response',
  'ai_reclassification',
  'web_ui',
] as const;
export type FeatureName = (typeof FEATURE_NAMES)[number];

const Name = z.string().min(1).max(255);

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

/** models: may this model of this provider be called with data of this classification? */
export const ModelsInputSchema = z.object({
  provider: Name,
  model: Name,
  classification_level: ClassificationLevelSchema,
});
export type ModelsInput = z.infer<typeof ModelsInputSchema>;

/** actions: what autonomy does this tool have (for the user the request is decided for)? */
export const ActionsInputSchema = z.object({
  tool: Name,
  classification_level: ClassificationLevelSchema.optional(),
});
export type ActionsInput = z.infer<typeof ActionsInputSchema>;

/** data: may data of this classification leave the tenant (to `destination`, when named)? */
export const DataInputSchema = z.object({
  classification_level: ClassificationLevelSchema,
  destination: Name.optional(),
});
export type DataInput = z.infer<typeof DataInputSchema>;

/** features: is this feature on (for the user the request is decided for)? */
export const FeaturesInputSchema = z.object({ feature: z.enum(FEATURE_NAMES) });
export type FeaturesInput = z.infer<typeof FeaturesInputSchema>;

/** The input schema of each decision domain. */
export const DECISION_INPUT_SCHEMAS = {
  'agent-to-agent': AgentToAgentInputSchema,
  integrations: IntegrationsInputSchema,
  models: ModelsInputSchema,
  actions: ActionsInputSchema,
  data: DataInputSchema,
  features: FeaturesInputSchema,
} as const satisfies Record<DecisionDomain, z.ZodType>;

/**
 * The level a decision is asked at without a user: only `enterprise`, and only explicitly — a
 * request names its user (`userId`) or says `scope: 'enterprise'`, never neither
 * (`parseDecisionRequest` refuses an omission: it would skip every org, team and user policy).
 */
export const DecisionScopeSchema = z.literal('enterprise');

const requestOf = <D extends DecisionDomain>(domain: D) =>
  z.object({
    domain: z.literal(domain),
    tenantId: z.string().min(1).max(255),
    userId: z.string().min(1).max(255).optional(),
    scope: DecisionScopeSchema.optional(),
    input: DECISION_INPUT_SCHEMAS[domain],
  });

/** A whole DecisionRequest, checked at runtime (engines answer `err(ValidationError)` when it fails). */
export const DecisionRequestSchema = z.discriminatedUnion('domain', [
  requestOf('agent-to-agent'),
  requestOf('integrations'),
  requestOf('models'),
  requestOf('actions'),
  requestOf('data'),
  requestOf('features'),
]);
