/**
 * fast-check arbitraries of decision inputs, shared by the property tests of the exact checks that
 * shortcut zod (core's `isExactDecisionRequest`, policy's `exactDecisionBody`): valid inputs of
 * every domain, and near-valid ones (keys missing, values off, an unknown key).
 */
import fc from 'fast-check';
import { CLASSIFICATION_LEVELS, type DecisionDomain, EXCHANGE_TYPES, FEATURE_NAMES } from '../src/index';

/** A valid value, or one close to it that is not (empty, too long, wrong type, absent). */
const near = <T>(valid: fc.Arbitrary<T>) =>
  fc.oneof(
    { weight: 6, arbitrary: valid },
    { weight: 1, arbitrary: fc.constantFrom('', 'x'.repeat(256), 7, null, undefined, [], {}, 'nonsense') },
  );
export const name = fc.oneof(fc.string({ minLength: 1, maxLength: 8 }), fc.constant('y'.repeat(255)));
const level = fc.constantFrom(...CLASSIFICATION_LEVELS);
/** Every key optional (absent, or present with a near-valid value), sometimes one unknown key. */
export const fields = (model: Record<string, fc.Arbitrary<unknown>>) =>
  fc
    .tuple(
      fc.record(Object.fromEntries(Object.entries(model).map(([k, v]) => [k, near(v)])), {
        requiredKeys: [],
      }),
      fc.option(fc.constantFrom('extra', 'role', 'userId', '__proto__', ''), { freq: 6 }),
    )
    .map(([record, extra]) => (extra === null ? record : { ...record, [extra]: 'x' }));

/** Near-valid inputs of each domain. */
export const noisyInputs: Record<DecisionDomain, fc.Arbitrary<unknown>> = {
  'agent-to-agent': fields({
    exchange_type: fc.constantFrom(...EXCHANGE_TYPES),
    initiator_tenant_id: name,
    responder_tenant_id: name,
    initiator_org_unit: name,
    responder_org_unit: name,
    classification_level: level,
  }),
  integrations: fields({
    action: name,
    context: fields({
      targetSystem: name,
      additional: fields({ source: fc.string(), trigger: fc.string(), other: fc.nat() }),
    }),
  }),
  models: fields({ provider: name, model: name, classification_level: level }),
  actions: fields({ tool: name, classification_level: level }),
  data: fields({ classification_level: level, destination: name }),
  features: fields({ feature: fc.constantFrom(...FEATURE_NAMES) }),
};

/** Valid inputs of each domain, each optional key present or not. */
export const validInputs: Record<DecisionDomain, fc.Arbitrary<unknown>> = {
  'agent-to-agent': fc.record({
    exchange_type: fc.constantFrom(...EXCHANGE_TYPES),
    initiator_tenant_id: name,
    responder_tenant_id: name,
    initiator_org_unit: name,
    responder_org_unit: name,
    classification_level: level,
  }),
  integrations: fc.record({
    action: name,
    context: fc.record({
      targetSystem: name,
      additional: fc.record(
        { source: fc.string(), trigger: fc.string(), other: fc.nat() },
        { requiredKeys: [] },
      ),
    }),
  }),
  models: fc.record({ provider: name, model: name, classification_level: level }),
  actions: fc.record({ tool: name, classification_level: level }, { requiredKeys: ['tool'] }),
  data: fc.record(
    { classification_level: level, destination: name },
    { requiredKeys: ['classification_level'] },
  ),
  features: fc.record({ feature: fc.constantFrom(...FEATURE_NAMES) }),
};
