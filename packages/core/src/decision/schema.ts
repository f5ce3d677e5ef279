/** Input documents of the decision engine (spec: "Policy evaluation inputs and outputs"). */
import { z } from 'zod';
import { ClassificationLevelSchema } from '../classification-lattice';
import { ExchangeTypeSchema } from '../exchange/schema';

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
