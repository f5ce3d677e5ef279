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

/** A domain's input: its members (a nested object is a model of its own) and which are required. */
interface Model {
  members: Record<string, fc.Arbitrary<unknown> | Model>;
  /** Default: every member. */
  required?: string[];
}
const model = (members: Model['members'], required?: string[]): Model =>
  required ? { members, required } : { members };
const each = <T>(m: Model, f: (member: Model) => T) =>
  Object.fromEntries(
    Object.entries(m.members).map(([k, v]) => [k, v instanceof fc.Arbitrary ? v : f(v)]),
  ) as Record<string, fc.Arbitrary<unknown>>;
const validOf = (m: Model): fc.Arbitrary<unknown> =>
  fc.record(each(m, validOf), { requiredKeys: m.required ?? Object.keys(m.members) });
const noisyOf = (m: Model): fc.Arbitrary<unknown> => fields(each(m, noisyOf));

const models: Record<DecisionDomain, Model> = {
  'agent-to-agent': model({
    exchange_type: fc.constantFrom(...EXCHANGE_TYPES),
    initiator_tenant_id: name,
    responder_tenant_id: name,
    initiator_org_unit: name,
    responder_org_unit: name,
    classification_level: level,
  }),
  integrations: model({
    action: name,
    context: model({
      targetSystem: name,
      additional: model({ source: fc.string(), trigger: fc.string(), other: fc.nat() }, []),
    }),
  }),
  models: model({ provider: name, model: name, classification_level: level }),
  actions: model({ tool: name, classification_level: level }, ['tool']),
  data: model({ classification_level: level, destination: name }, ['classification_level']),
  features: model({ feature: fc.constantFrom(...FEATURE_NAMES) }),
};
const perDomain = (f: (m: Model) => fc.Arbitrary<unknown>) =>
  Object.fromEntries(Object.entries(models).map(([d, m]) => [d, f(m)])) as Record<
    DecisionDomain,
    fc.Arbitrary<unknown>
  >;

/** Near-valid inputs of each domain. */
export const noisyInputs = perDomain(noisyOf);

/** Valid inputs of each domain, each optional key present or not. */
export const validInputs = perDomain(validOf);
