/**
 * The built-in decision: a pure function of an effective policy and an input document (spec:
 * "Policy evaluation inputs and outputs"). No I/O; one Decision object (and its constraints) is
 * allocated per call, reason strings of the common outcomes are constants.
 */
import {
  type ActionsInput,
  type AgentToAgentInput,
  CLASSIFICATION_LEVELS,
  type ClassificationLevel,
  classificationOrder,
  type DataInput,
  type Decision,
  type DecisionRequest,
  type FeaturesInput,
  INTERCHANGE_DEFAULT_MAX_ROUNDS,
  type IntegrationsInput,
  type ModelsInput,
} from '@agentgov/core';
import type { AgentToAgentPolicy, IntegrationsPolicy, PolicyContentByDomain } from './domains';
import { evaluateActions, evaluateData, evaluateFeatures, evaluateModels } from './evaluate-domains';

/** `max_classification_shared` when no policy sets it (the AgentIdentity configuration default). */
export const DEFAULT_MAX_CLASSIFICATION_SHARED: ClassificationLevel = 'internal';

type ConnectorRule = NonNullable<NonNullable<IntegrationsPolicy['connectors']>['tracker']>;

export const REASONS = {
  crossTenant: 'cross-tenant exchange is always blocked',
  notEnabled: 'agent-to-agent exchange is not enabled by policy (default deny)',
  a2aAllowed: 'allowed by agent-to-agent policy',
  integrationAllowed: 'allowed by integrations policy',
} as const;

function decision(
  allow: boolean,
  reason: string,
  maxRounds: number | undefined,
  maxShared: ClassificationLevel | undefined,
): Decision {
  const constraints: Decision['constraints'] = {};
  if (maxRounds !== undefined) constraints.max_rounds = maxRounds;
  if (maxShared !== undefined) constraints.max_classification_shared = maxShared;
  return { allow, deny: !allow, reason, constraints };
}

/**
 * The most that may be shared between two org units: `maxShared`, lowered below the first level
 * (from `public` up) that a `cross_org` rule denies — so that what the exchange carries either way
 * (the query, and the answer too) is filtered to it, not only the level the query was decided on.
 */
function crossOrgCeiling(policy: AgentToAgentPolicy, maxShared: ClassificationLevel): ClassificationLevel {
  let ceiling: ClassificationLevel = 'public';
  for (const level of CLASSIFICATION_LEVELS) {
    if (classificationOrder(level) > classificationOrder(maxShared) || policy.cross_org?.[level] === 'deny')
      break;
    ceiling = level;
  }
  return ceiling;
}

/**
 * Agent-to-agent: deny across tenants whatever the policy says; then `enabled` must be true;
 * the exchange type must be allowed; a cross-org `deny` rule for the level denies between
 * different org units; the level must not exceed `max_classification_shared`.
 * Constraints: `max_rounds` of the input's exchange type (default 3) and `max_classification_shared`
 * — between different org units, lowered below the levels `cross_org` denies (`crossOrgCeiling`).
 */
export function evaluateAgentToAgent(
  policy: AgentToAgentPolicy,
  input: AgentToAgentInput,
  tenantId?: string,
): Decision {
  const maxRounds = policy.max_rounds?.[input.exchange_type] ?? INTERCHANGE_DEFAULT_MAX_ROUNDS;
  const policyMax = policy.max_classification_shared ?? DEFAULT_MAX_CLASSIFICATION_SHARED;
  const crossOrg = input.initiator_org_unit !== input.responder_org_unit;
  const maxShared = crossOrg ? crossOrgCeiling(policy, policyMax) : policyMax;
  if (
    input.initiator_tenant_id !== input.responder_tenant_id ||
    (tenantId !== undefined && tenantId !== input.initiator_tenant_id)
  ) {
    return decision(false, REASONS.crossTenant, maxRounds, maxShared);
  }
  if (policy.enabled !== true) return decision(false, REASONS.notEnabled, maxRounds, maxShared);
  const types = policy.allowed_exchange_types;
  if (types !== undefined && !types.includes(input.exchange_type)) {
    return decision(
      false,
      `exchange type ${input.exchange_type} is not allowed by policy`,
      maxRounds,
      maxShared,
    );
  }
  const level = input.classification_level;
  if (crossOrg && policy.cross_org?.[level] === 'deny') {
    return decision(false, crossOrgReason(level), maxRounds, maxShared);
  }
  if (classificationOrder(level) > classificationOrder(maxShared)) {
    // Above what the policy shares at all, or (between org units) above what cross_org lets through.
    const reason =
      classificationOrder(level) > classificationOrder(policyMax)
        ? `${level} data exceeds max_classification_shared ${policyMax}`
        : crossOrgReason(level);
    return decision(false, reason, maxRounds, maxShared);
  }
  return decision(true, REASONS.a2aAllowed, maxRounds, maxShared);
}

/**
 * Integrations: an action is allowed only by an `actions.<action>` rule with `allowed: true`
 * whose conditions (`target_systems`, `sources`, `triggers`; unset = any) all match, and only
 * when the target connector is not disabled and, if it lists permissions, has `write`.
 * Everything else is denied. Constraint: the connector's `max_classification` as
 * `max_classification_shared`, when set.
 */
export function evaluateIntegrations(policy: IntegrationsPolicy, input: IntegrationsInput): Decision {
  const target = input.context.targetSystem;
  const connectors: { readonly [type: string]: ConnectorRule | undefined } | undefined = policy.connectors;
  const connector = connectors?.[target];
  const maxShared = connector?.max_classification;
  const rule = policy.actions?.[input.action];
  if (rule === undefined || rule.allowed !== true) {
    return decision(false, `no integrations policy allows action ${input.action}`, undefined, maxShared);
  }
  if (connector?.enabled === false) {
    return decision(false, `connector ${target} is disabled by policy`, undefined, maxShared);
  }
  if (connector?.permissions !== undefined && !connector.permissions.includes('write')) {
    return decision(false, `connector ${target} has no write permission`, undefined, maxShared);
  }
  if (rule.target_systems !== undefined && !rule.target_systems.includes(target)) {
    return decision(
      false,
      `action ${input.action} is not allowed on target system ${target}`,
      undefined,
      maxShared,
    );
  }
  const source = input.context.additional.source;
  if (rule.sources !== undefined && (source === undefined || !rule.sources.includes(source))) {
    return decision(
      false,
      `action ${input.action} is not allowed from source ${source ?? '(none)'}`,
      undefined,
      maxShared,
    );
  }
  const trigger = input.context.additional.trigger;
  if (rule.triggers !== undefined && (trigger === undefined || !rule.triggers.includes(trigger))) {
    return decision(
      false,
      `action ${input.action} is not allowed on trigger ${trigger ?? '(none)'}`,
      undefined,
      maxShared,
    );
  }
  return decision(true, REASONS.integrationAllowed, undefined, maxShared);
}

/**
 * `evaluate(effective, domain, input, tenantId?)`: the built-in decision for one domain, on the
 * effective policy content of that domain and an already validated input. Pure; the engine adds
 * the default deny when no policy applies, and the ids of the policies.
 */
export function evaluate(
  effective: unknown,
  domain: DecisionRequest['domain'],
  input: DecisionRequest['input'],
  tenantId?: string,
): Decision {
  switch (domain) {
    case 'agent-to-agent':
      return evaluateAgentToAgent(effective as AgentToAgentPolicy, input as AgentToAgentInput, tenantId);
    case 'integrations':
      return evaluateIntegrations(effective as IntegrationsPolicy, input as IntegrationsInput);
    case 'models':
      return evaluateModels(effective as PolicyContentByDomain['models'], input as ModelsInput);
    case 'actions':
      return evaluateActions(effective as PolicyContentByDomain['actions'], input as ActionsInput);
    case 'data':
      return evaluateData(effective as PolicyContentByDomain['data'], input as DataInput);
    case 'features':
      return evaluateFeatures(effective as PolicyContentByDomain['features'], input as FeaturesInput);
  }
}

/**
 * The spec's wording: confidential or restricted data is denied between org units "with the reason
 * that confidential data cannot be shared cross-org" — kept verbatim for both levels, with the
 * actual level named after it when it is not confidential.
 */
function crossOrgReason(level: ClassificationLevel): string {
  if (level === 'confidential') return 'confidential data cannot be shared cross-org';
  if (level === 'restricted')
    return 'confidential data cannot be shared cross-org (classification: restricted)';
  return `${level} data cannot be shared cross-org`;
}
