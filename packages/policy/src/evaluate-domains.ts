/**
 * The built-in decision of the models, actions, data and features domains: pure functions of an
 * effective policy and an input document, in the style of `evaluate.ts` (inputs and outputs are
 * tabulated in the README, "Decision inputs and outputs"). Whether any policy applies at all is
 * the engine's question (no active policy in the chain = default deny); these functions decide on
 * the effective content.
 */
import {
  type ActionAutonomy,
  type ActionsInput,
  type ClassificationLevel,
  classificationOrder,
  type DataInput,
  type Decision,
  type FeaturesInput,
  type ModelsInput,
} from '@agentgov/core';
import type { ActionsPolicy, DataPolicy, FeaturesPolicy, ModelsPolicy } from './domains';

/** Levels from which data is "sensitive" for `sensitive_data_models`. */
export const SENSITIVE_FROM: ClassificationLevel = 'confidential';

const allow = (reason: string, constraints: Decision['constraints'] = {}): Decision => ({
  allow: true,
  deny: false,
  reason,
  constraints,
});
const deny = (reason: string, constraints: Decision['constraints'] = {}): Decision => ({
  allow: false,
  deny: true,
  reason,
  constraints,
});

/**
 * Models: denied when the model is in `denied_models`, the provider is not in `allowed_providers`
 * or the model not in `allowed_models` (when set), the level is not in `allowed_classifications`
 * (when set) or exceeds `max_classification`, or — for confidential and restricted data — the model
 * is not one of `sensitive_data_models` (when set). Constraints: `max_classification_shared` (the
 * effective `max_classification`, when set) and `sensitive_data_models` (when set).
 */
export function evaluateModels(policy: ModelsPolicy, input: ModelsInput): Decision {
  const constraints: Decision['constraints'] = {};
  if (policy.max_classification !== undefined)
    constraints.max_classification_shared = policy.max_classification;
  if (policy.sensitive_data_models !== undefined)
    constraints.sensitive_data_models = policy.sensitive_data_models;
  const { model, provider, classification_level: level } = input;
  if (policy.denied_models?.includes(model)) return deny(`model ${model} is denied by policy`, constraints);
  if (policy.allowed_providers !== undefined && !policy.allowed_providers.includes(provider)) {
    return deny(`provider ${provider} is not allowed by policy`, constraints);
  }
  if (policy.allowed_models !== undefined && !policy.allowed_models.includes(model)) {
    return deny(`model ${model} is not allowed by policy`, constraints);
  }
  if (policy.allowed_classifications !== undefined && !policy.allowed_classifications.includes(level)) {
    return deny(`${level} data may not be sent to a model (allowed_classifications)`, constraints);
  }
  if (
    policy.max_classification !== undefined &&
    classificationOrder(level) > classificationOrder(policy.max_classification)
  ) {
    return deny(`${level} data exceeds max_classification ${policy.max_classification}`, constraints);
  }
  const sensitive = classificationOrder(level) >= classificationOrder(SENSITIVE_FROM);
  if (
    sensitive &&
    policy.sensitive_data_models !== undefined &&
    !policy.sensitive_data_models.includes(model)
  ) {
    const required = policy.sensitive_data_models.join(', ') || '(none)';
    return deny(`${level} data requires one of the sensitive_data_models: ${required}`, constraints);
  }
  return allow(`model ${model} of ${provider} is allowed for ${level} data`, constraints);
}

const AUTONOMY_ORDER: readonly ActionAutonomy[] = ['autonomous', 'notify', 'approve', 'block'];
const stricter = (
  a: ActionAutonomy | undefined,
  b: ActionAutonomy | undefined,
): ActionAutonomy | undefined =>
  a === undefined ? b : b === undefined ? a : AUTONOMY_ORDER.indexOf(a) >= AUTONOMY_ORDER.indexOf(b) ? a : b;

/**
 * Actions: the tool's autonomy is `block` when it is in `blocked`, else the stricter of
 * `actions.<tool>` (alias `tools.<tool>`) and `default_autonomy` (a tool entry can tighten the default, never loosen it —
 * otherwise a lower scope's tool entry would undo an ancestor's default); with neither set the
 * tool is denied. Allowed iff the autonomy is not `block`; constraint `autonomy` (`notify`: tell
 * the user, `approve`: a human approves each call).
 */
export function evaluateActions(policy: ActionsPolicy, input: ActionsInput): Decision {
  const tool = input.tool;
  if (policy.blocked?.includes(tool)) return deny(`tool ${tool} is blocked by policy`, { autonomy: 'block' });
  const tools: { readonly [name: string]: ActionAutonomy | undefined } | undefined = policy.actions;
  const own = tools?.[tool];
  const autonomy = stricter(own, policy.default_autonomy);
  if (autonomy === undefined) {
    return deny(`no actions policy sets an autonomy for tool ${tool} (default deny)`);
  }
  const source = own === autonomy ? `actions.${tool}` : 'default_autonomy';
  if (autonomy === 'block') return deny(`tool ${tool} is blocked by policy (${source})`, { autonomy });
  return allow(`tool ${tool} runs with autonomy ${autonomy} (${source})`, { autonomy });
}

/**
 * Data: external sharing is denied to a destination in `denied_destinations`, above
 * `external_sharing_max`, and when no policy sets `external_sharing_max` (default deny).
 * Constraint: `max_classification_shared` = `external_sharing_max`.
 */
export function evaluateData(policy: DataPolicy, input: DataInput): Decision {
  const max = policy.external_sharing_max;
  const constraints: Decision['constraints'] = max !== undefined ? { max_classification_shared: max } : {};
  const level = input.classification_level;
  if (input.destination !== undefined && policy.denied_destinations?.includes(input.destination)) {
    return deny(`destination ${input.destination} is denied by policy`, constraints);
  }
  if (max === undefined) return deny('no data policy sets external_sharing_max (default deny)');
  if (classificationOrder(level) > classificationOrder(max)) {
    return deny(`${level} data exceeds external_sharing_max ${max}`, constraints);
  }
  return allow(`${level} data may be shared externally (external_sharing_max ${max})`, constraints);
}

/** Features: on only when the effective policy sets the feature to `true`. */
export function evaluateFeatures(policy: FeaturesPolicy, input: FeaturesInput): Decision {
  const on = policy[input.feature];
  if (on === true) return allow(`feature ${input.feature} is enabled by policy`);
  return deny(
    on === false
      ? `feature ${input.feature} is disabled by policy`
      : `feature ${input.feature} is not enabled by policy (default deny)`,
  );
}
