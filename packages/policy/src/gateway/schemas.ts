/**
 * The schemas of the policy plugin's routes (`./routes`, `./decision-routes`), which drive both
 * validation and the OpenAPI document: the policy as answered (with its content `warnings` after a
 * write), the list query, the bodies of `POST /decisions` and `POST /decisions/explain`, and the
 * decision and its explanation (the effective policy, each level's policies and what they
 * contributed, the policy that decided).
 */
import {
  ActionAutonomySchema,
  ClassificationLevelSchema,
  DECISION_INPUT_SCHEMAS,
  type DecisionDomain,
  DecisionDomainSchema,
  PolicyDomainSchema,
  PolicySchema,
  ScopeSchema,
} from '@agentgov/core';
import { z } from 'zod';

export const PolicyOut = PolicySchema.meta({ id: 'Policy' });
/** A created or updated policy: the policy, and `warnings` when its content has names no engine asks about. */
export const PolicyWrittenOut = PolicySchema.extend({
  warnings: z
    .array(
      z.object({
        field: z
          .string()
          .meta({ description: 'The field, as validation errors name it (`content.briefing`)' }),
        message: z.string(),
        suggestion: z.string().optional().meta({ description: 'The nearest known name' }),
      }),
    )
    .optional()
    .meta({
      description:
        'Extension: valid content that is probably a mistake — a feature-flag name the engine never asks about (`briefing` for `briefings`), with the nearest known name. Present only when there are warnings; the policy is stored all the same.',
    }),
}).meta({ id: 'PolicyWritten' });

export const PolicyListQuery = z.object({
  scope: ScopeSchema.optional(),
  domain: PolicyDomainSchema.optional(),
  status: z.enum(['draft', 'active', 'deprecated']).optional(),
});

/** The body of `POST /decisions`: one domain and its input (tables in the policy README). */
export { DecisionBodySchema } from '@agentgov/core';

export const DecisionOut = z.object({
  allow: z.boolean(),
  deny: z.boolean(),
  reason: z.string(),
  constraints: z.object({
    max_rounds: z.number().optional().describe('agent-to-agent: most rounds of the exchange'),
    max_classification_shared: ClassificationLevelSchema.optional().describe(
      'highest level that may be shared (agent-to-agent, integrations), sent to the model (models) or shared externally (data)',
    ),
    autonomy: ActionAutonomySchema.optional().describe('actions: the autonomy of the tool'),
    sensitive_data_models: z
      .array(z.string())
      .optional()
      .describe('models: the only models that may receive confidential or restricted data'),
  }),
  policyIds: z.array(z.string()).optional().describe('ids of the policies the decision was computed from'),
});

const explainBodyOf = <D extends DecisionDomain>(domain: D) =>
  z.object({
    userId: z.string().min(1).max(255).describe('the user the decision is explained for'),
    domain: z.literal(domain),
    input: DECISION_INPUT_SCHEMAS[domain],
  });

/**
 * The body of `POST /decisions/explain`: the body of `POST /decisions` plus the user it is asked
 * for (one of the caller's scope).
 */
export const ExplainBodySchema = z.discriminatedUnion('domain', [
  explainBodyOf('agent-to-agent'),
  explainBodyOf('integrations'),
  explainBodyOf('models'),
  explainBodyOf('actions'),
  explainBodyOf('data'),
  explainBodyOf('features'),
]);

const PolicyRefOut = z.object({
  id: z.string(),
  scope: ScopeSchema,
  scopeId: z.string(),
  name: z.string(),
  version: z.string(),
});

export const ExplanationOut = z
  .object({
    userId: z.string(),
    domain: DecisionDomainSchema,
    effective: z
      .record(z.string(), z.unknown())
      .describe('the effective policy: the meet of every active policy on the chain'),
    decision: DecisionOut,
    decidedBy: PolicyRefOut.nullable().describe(
      'the last policy on the chain that changed the decision (allow, reason or constraints); null: the defaults decided',
    ),
    trace: z
      .array(
        z.object({
          scope: ScopeSchema,
          scopeId: z.string(),
          policies: z.array(
            PolicyRefOut.extend({
              contributed: z
                .array(z.object({ key: z.string(), value: z.unknown() }))
                .describe(
                  'keys this policy set first on the chain or made stricter, with their effective value',
                ),
            }),
          ),
          decision: z
            .object({ allow: z.boolean(), reason: z.string() })
            .describe('the decision had the chain ended at this level'),
        }),
      )
      .describe('the chain, enterprise first'),
    engine: z
      .string()
      .describe(
        "the decision engine that enforces decisions; the explanation is the built-in engine's, so with another engine (opa) its rules decide",
      ),
  })
  .meta({ id: 'DecisionExplanation' });
