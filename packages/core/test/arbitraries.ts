/** fast-check arbitraries of valid resources (test-only: fast-check is a root dev dependency). */
import {
  ACTION_TYPES,
  AUDIT_OUTCOMES,
  BRIEFING_CONNECTOR_STATUS,
  CLASSIFICATION_LEVELS,
  CLASSIFICATION_SOURCES,
  CONNECTOR_PERMISSIONS,
  CONNECTOR_STATUSES,
  CONNECTOR_TYPES,
  DELIVERY_CHANNELS,
  EXCHANGE_OUTCOMES,
  EXCHANGE_TYPES,
  HUMAN_AVAILABILITY,
  NEWS_RELEVANCE,
  POLICY_DOMAINS,
  POLICY_RESULTS,
  POLICY_STATUSES,
  SCOPES,
  TASK_STATUSES,
  TENANT_STATUSES,
} from '@agentgov/core';
import fc from 'fast-check';

export const level = fc.constantFrom(...CLASSIFICATION_LEVELS);
const timestamp = fc
  .date({
    min: new Date('1970-01-01T00:00:00.000Z'),
    max: new Date('9999-12-31T23:59:59.999Z'),
    noInvalidDate: true,
  })
  .map((d) => d.toISOString());
const uuid = fc.uuid({ version: 4 });
const name255 = fc.string({ minLength: 1, maxLength: 255, unit: 'grapheme-ascii' });
const anyText = fc.string({ unit: 'binary' });
const semver = fc
  .tuple(
    fc.nat(999),
    fc.nat(999),
    fc.nat(999),
    fc.option(fc.constantFrom('alpha', 'rc.1', 'beta.2'), { nil: undefined }),
  )
  .map(([a, b, c, pre]) => `${a}.${b}.${c}${pre ? `-${pre}` : ''}`);
/** Doubles without -0, which JSON cannot carry (it comes back as 0). */
const double = (c: fc.DoubleConstraints = {}) =>
  fc.double({ noNaN: true, noDefaultInfinity: true, ...c }).map((x) => (x === 0 ? 0 : x));
const nullable = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null });
/** JSON objects. zod drops `__proto__` keys of records (safely), so they are left out here. */
const jsonKey = fc.string({ maxLength: 10 }).filter((k) => k !== '__proto__');
const jsonObject = fc
  .dictionary(
    jsonKey,
    fc.jsonValue({ maxDepth: 2 }).filter((v) => !JSON.stringify(v).includes('"__proto__"')),
    { maxKeys: 4 },
  )
  .map((o) => JSON.parse(JSON.stringify(o)) as Record<string, unknown>); // JSON has no -0

export const policy = fc.record({
  id: uuid,
  tenantId: name255,
  scope: fc.constantFrom(...SCOPES),
  scopeId: name255,
  domain: fc.constantFrom(...POLICY_DOMAINS),
  name: name255,
  version: semver,
  content: fc.string({ minLength: 1, maxLength: 200 }),
  status: fc.constantFrom(...POLICY_STATUSES),
  createdBy: name255,
  createdAt: timestamp,
  updatedAt: timestamp,
  changeReason: fc.string({ minLength: 1, maxLength: 100 }),
});

export const policyCreate = fc.record({
  scope: fc.constantFrom(...SCOPES),
  scopeId: name255,
  domain: fc.constantFrom(...POLICY_DOMAINS),
  name: name255,
  version: semver,
  content: fc.string({ minLength: 1, maxLength: 200 }),
  changeReason: fc.string({ minLength: 1, maxLength: 100 }),
});

export const task = fc.record({
  id: uuid,
  tenantId: name255,
  userId: name255,
  title: name255,
  description: anyText,
  priorityScore: fc.integer({ min: 0, max: 100 }),
  status: fc.constantFrom(...TASK_STATUSES),
  sources: fc.array(fc.record({ system: fc.string(), id: fc.string(), url: fc.webUrl() }), { maxLength: 3 }),
  correlationId: nullable(uuid),
  correlationConfidence: nullable(double({ min: 0, max: 1 })),
  deadline: nullable(timestamp),
  urgencySignals: fc.record({
    senderSeniority: nullable(double()),
    followUpCount: fc.nat(1000),
    slaTimer: nullable(fc.constantFrom('PT4H', 'P1D', '2025-01-01T00:00:00Z')),
    blockingRelationships: fc.array(fc.string(), { maxLength: 3 }),
  }),
  classification: level,
  discoveredAt: timestamp,
  completedAt: nullable(timestamp),
  archivedAt: nullable(timestamp),
  purgeAt: nullable(timestamp),
});

export const connector = fc.record({
  id: uuid,
  type: fc.constantFrom(...CONNECTOR_TYPES),
  tenantId: name255,
  userId: nullable(fc.string({ maxLength: 255 })),
  permissions: fc.constantFrom(...CONNECTOR_PERMISSIONS),
  defaultClassification: level,
  status: fc.constantFrom(...CONNECTOR_STATUSES),
  credentialsRef: name255,
  lastSyncAt: nullable(timestamp),
  errorDetails: nullable(fc.string()),
  config: jsonObject,
  createdAt: timestamp,
});

export const exchange = fc.record({
  exchangeId: uuid,
  tenantId: name255,
  conversationId: uuid,
  initiatorAgentId: name255,
  initiatorUserId: name255,
  responderAgentId: name255,
  responderUserId: name255,
  exchangeType: fc.constantFrom(...EXCHANGE_TYPES),
  currentRound: fc.nat(100),
  maxRounds: fc.integer({ min: 1, max: 100 }),
  classificationLevel: level,
  outcome: fc.constantFrom(...EXCHANGE_OUTCOMES),
  escalationReason: nullable(fc.string()),
  dataShared: fc.array(fc.record({ source: fc.string(), fields: fc.array(fc.string(), { maxLength: 3 }) }), {
    maxLength: 3,
  }),
  dataWithheld: fc.array(
    fc.record({ reason: fc.constantFrom('classification_exceeded', 'other'), description: fc.string() }),
    {
      maxLength: 3,
    },
  ),
  policyApplied: name255,
  transcript: fc.array(jsonObject, { maxLength: 3 }),
  channel: name255,
  startedAt: timestamp,
  endedAt: nullable(timestamp),
});

export const auditEntry = fc.record({
  id: fc.stringMatching(/^[0-7][0-9A-HJKMNP-TV-Z]{25}$/),
  tenantId: name255,
  userId: name255,
  timestamp,
  actionType: fc.constantFrom(...ACTION_TYPES),
  actionDetail: jsonObject,
  dataAccessed: fc.array(fc.record({ source: fc.string(), classification: level, purpose: fc.string() }), {
    maxLength: 3,
  }),
  modelUsed: nullable(fc.string()),
  modelTokens: nullable(fc.record({ input: fc.nat(), output: fc.nat() })),
  dataClassification: level,
  policyApplied: name255,
  policyResult: fc.constantFrom(...POLICY_RESULTS),
  policyReason: fc.string(),
  outcome: fc.constantFrom(...AUDIT_OUTCOMES),
  requestId: name255,
});

export const briefing = fc.record({
  id: uuid,
  userId: name255,
  tenantId: name255,
  generatedAt: timestamp,
  tasks: fc.array(fc.record({ taskId: uuid, rank: fc.integer({ min: 1, max: 50 }) }), { maxLength: 3 }),
  timeBlocks: fc.array(
    fc.record({ start: timestamp, end: timestamp, taskId: nullable(uuid), label: fc.string() }),
    {
      maxLength: 3,
    },
  ),
  autoResponseSummary: jsonObject,
  orgNewsItems: fc.array(
    fc.record({ title: fc.string(), relevance: fc.constantFrom(...NEWS_RELEVANCE), source: fc.string() }),
    { maxLength: 3 },
  ),
  docChangeAlerts: fc.array(fc.record({ docId: fc.string(), summary: fc.string(), impact: fc.string() }), {
    maxLength: 3,
  }),
  alerts: fc.array(fc.record({ type: fc.string(), message: fc.string(), severity: fc.string() }), {
    maxLength: 3,
  }),
  connectorStatus: fc.record(
    Object.fromEntries(
      CONNECTOR_TYPES.map((t) => [t, fc.constantFrom(...BRIEFING_CONNECTOR_STATUS)]),
    ) as Record<(typeof CONNECTOR_TYPES)[number], fc.Arbitrary<(typeof BRIEFING_CONNECTOR_STATUS)[number]>>,
    { requiredKeys: [] },
  ),
  deliveryChannel: fc.constantFrom(...DELIVERY_CHANNELS),
  deliveredAt: nullable(timestamp),
});

export const dataClassification = fc.record({
  tenantId: name255,
  dataRef: fc.string({ minLength: 1, maxLength: 1024 }),
  level,
  assignedBy: fc.constantFrom(...CLASSIFICATION_SOURCES),
  originalLevel: nullable(level),
  overrideBy: nullable(fc.string()),
  overrideReason: nullable(fc.string()),
  assessedAt: timestamp,
});

export const tenant = fc.record({
  id: name255,
  name: name255,
  status: fc.constantFrom(...TENANT_STATUSES),
  createdAt: timestamp,
});

export const agentIdentity = fc.record({
  instanceId: name255,
  userId: name255,
  tenantId: name255,
  orgUnit: name255,
  canReceiveQueries: fc.boolean(),
  canAutoRespond: fc.boolean(),
  canMakeCommitments: fc.constant(false as const),
  maxClassificationShared: level,
  supportedExchangeTypes: fc.subarray([...EXCHANGE_TYPES]),
  maxRoundsAccepted: fc.integer({ min: 1, max: 20 }),
  humanAvailability: fc.constantFrom(...HUMAN_AVAILABILITY),
});
