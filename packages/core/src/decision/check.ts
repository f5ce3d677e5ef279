/**
 * The decision engine's hot-path check of a request: plain property reads, no copy, no zod. It
 * answers true only for a request that `DecisionRequestSchema` would accept and hand back
 * unchanged (every key known, no default to fill in, no `undefined` value) and that names its user
 * or says `scope: 'enterprise'` (issue 23, item 11). Anything else — an invalid request, but also
 * a valid one with unknown keys (zod strips them) or a missing default — is false, and the caller
 * falls back to the full parse, which gives the error or the cleaned copy. So this check may refuse
 * more than the schema, never accept more (a property test holds it to that).
 */
import { CLASSIFICATION_LEVELS } from '../classification-lattice';
import { EXCHANGE_TYPES } from '../exchange/schema';
import type { DecisionRequest } from './port';
import { FEATURE_NAMES } from './schema';

type Fields = Record<string, unknown>;

/**
 * Whether `value` is one of `names` (`z.enum(names)`): a loop of `===` over the schema's own
 * list — on these short lists about twice as fast as a Set's hash lookup on the hot path.
 */
function oneOf(names: readonly string[], value: unknown): boolean {
  for (let i = 0; i < names.length; i += 1) if (names[i] === value) return true;
  return false;
}
const isLevel = (value: unknown): boolean => oneOf(CLASSIFICATION_LEVELS, value);
const isExchangeType = (value: unknown): boolean => oneOf(EXCHANGE_TYPES, value);
const isFeature = (value: unknown): boolean => oneOf(FEATURE_NAMES, value);

/** A plain object (object literal, `JSON.parse`, null prototype); arrays and class instances are not. */
function isPlain(value: unknown): value is Fields {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** How many enumerable keys `value` has (no array allocated). */
function keyCount(value: object): number {
  let n = 0;
  for (const _ in value) n += 1;
  return n;
}

/** A non-empty string (`z.string().min(1)`). */
const isText = (value: unknown): boolean => typeof value === 'string' && value.length >= 1;
/** A name: 1 to 255 UTF-16 units (`z.string().min(1).max(255)`). */
const isName = (value: unknown): boolean =>
  typeof value === 'string' && value.length >= 1 && value.length <= 255;

/**
 * An optional field: absent (counts 0), or present and valid (counts 1); -1 when invalid. Written
 * out per kind of check (no function argument): this runs on every decision.
 */
function optionalName(value: unknown): number {
  if (value === undefined) return 0;
  return isName(value) ? 1 : -1;
}
function optionalLevel(value: unknown): number {
  if (value === undefined) return 0;
  return isLevel(value) ? 1 : -1;
}
function optionalString(value: unknown): number {
  if (value === undefined) return 0;
  return typeof value === 'string' ? 1 : -1;
}

/** Checks a domain's input, counting its keys: the schema's keys and nothing else. */
function exactInput(domain: unknown, input: Fields): boolean {
  switch (domain) {
    case 'agent-to-agent':
      return (
        isExchangeType(input.exchange_type) &&
        isText(input.initiator_tenant_id) &&
        isText(input.responder_tenant_id) &&
        isText(input.initiator_org_unit) &&
        isText(input.responder_org_unit) &&
        isLevel(input.classification_level) &&
        keyCount(input) === 6
      );
    case 'integrations': {
      const context = input.context;
      if (!isText(input.action) || !isPlain(context) || keyCount(input) !== 2) return false;
      const additional = context.additional;
      // `additional` keeps unknown keys (a loose object); a missing one is a default zod fills in.
      return (
        isText(context.targetSystem) &&
        isPlain(additional) &&
        keyCount(context) === 2 &&
        optionalString(additional.source) >= 0 &&
        optionalString(additional.trigger) >= 0 &&
        !(Object.hasOwn(additional, 'source') && additional.source === undefined) &&
        !(Object.hasOwn(additional, 'trigger') && additional.trigger === undefined)
      );
    }
    case 'models':
      return (
        isName(input.provider) &&
        isName(input.model) &&
        isLevel(input.classification_level) &&
        keyCount(input) === 3
      );
    case 'actions': {
      const level = optionalLevel(input.classification_level);
      return isName(input.tool) && level >= 0 && keyCount(input) === 1 + level;
    }
    case 'data': {
      const destination = optionalName(input.destination);
      return isLevel(input.classification_level) && destination >= 0 && keyCount(input) === 1 + destination;
    }
    case 'features':
      return isFeature(input.feature) && keyCount(input) === 1;
    default:
      return false;
  }
}

/**
 * True when `request` is a valid DecisionRequest exactly as given (see the module comment): an
 * engine may then read it as it is. False means "parse it" — not necessarily "invalid".
 */
export function isExactDecisionRequest(request: unknown): request is DecisionRequest {
  if (!isPlain(request)) return false;
  const input = request.input;
  if (!isPlain(input) || !isName(request.tenantId)) return false;
  const user = optionalName(request.userId);
  const scope = request.scope === undefined ? 0 : request.scope === 'enterprise' ? 1 : -1;
  // A user or the enterprise scope, exactly one of them (parseDecisionRequest's rule).
  if (user < 0 || scope < 0 || user + scope !== 1) return false;
  return keyCount(request) === 3 + user + scope && exactInput(request.domain, input);
}
