import {
  AgentIdentityConfigSchema,
  AgentIdentitySchema,
  AuditEntryInputSchema,
  AuditEntrySchema,
  BriefingSchema,
  ConnectorCreateSchema,
  ConnectorSchema,
  DataClassificationSchema,
  EnvelopeSchema,
  EXCHANGE_TYPES,
  ExchangeSchema,
  INTERCHANGE_DEFAULT_MAX_ROUNDS,
  PolicyCreateSchema,
  PolicySchema,
  TaskSchema,
  TenantSchema,
  toConnectorView,
} from '@agentgov/core';
import { makeConnector, makePolicy } from '@agentgov/core/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import * as arb from './arbitraries';

const resources: [string, z.ZodType, fc.Arbitrary<Record<string, unknown>>][] = [
  ['Policy', PolicySchema, arb.policy],
  ['Task', TaskSchema, arb.task],
  ['Connector', ConnectorSchema, arb.connector],
  ['Exchange', ExchangeSchema, arb.exchange],
  ['AuditEntry', AuditEntrySchema, arb.auditEntry],
  ['Briefing', BriefingSchema, arb.briefing],
  ['DataClassification', DataClassificationSchema, arb.dataClassification],
  ['Tenant', TenantSchema, arb.tenant],
  ['AgentIdentity', AgentIdentitySchema, arb.agentIdentity],
];

describe('every valid generated resource parses, unchanged, and round-trips through JSON', () => {
  for (const [name, schema, gen] of resources) {
    it(name, () => {
      fc.assert(
        fc.property(gen, (value) => {
          const parsed = schema.parse(value);
          expect(parsed).toEqual(value);
          expect(schema.parse(JSON.parse(JSON.stringify(parsed)))).toEqual(parsed);
        }),
        { numRuns: 200 },
      );
    });
  }
});

/** Replaces one field of a valid value and expects the schema to reject it. */
function rejects<T extends Record<string, unknown>>(
  schema: z.ZodType,
  gen: fc.Arbitrary<T>,
  field: keyof T & string,
  bad: fc.Arbitrary<unknown>,
) {
  fc.assert(
    fc.property(gen, bad, (value, b) => {
      expect(schema.safeParse({ ...value, [field]: b }).success).toBe(false);
    }),
    { numRuns: 100 },
  );
}

const over255 = fc.string({ minLength: 256, maxLength: 400, unit: 'grapheme-ascii' });
const notIn = (allowed: readonly string[]) => fc.string().filter((s) => !allowed.includes(s));

describe('invalid values are rejected', () => {
  it('strings over 255 characters in max-255 fields', () => {
    for (const f of ['scopeId', 'name', 'createdBy', 'tenantId'] as const)
      rejects(PolicySchema, arb.policy, f, over255);
    rejects(TaskSchema, arb.task, 'title', over255);
    rejects(TaskSchema, arb.task, 'userId', over255);
    rejects(ConnectorSchema, arb.connector, 'credentialsRef', over255);
    rejects(AuditEntrySchema, arb.auditEntry, 'requestId', over255);
    rejects(AuditEntrySchema, arb.auditEntry, 'policyApplied', over255);
    // Exactly 255 is accepted.
    expect(PolicySchema.safeParse(makePolicy({ name: 'n'.repeat(255) })).success).toBe(true);
    expect(PolicySchema.safeParse({ ...makePolicy(), name: 'n'.repeat(256) }).success).toBe(false);
  });
  it('empty required strings', () => {
    for (const f of ['scopeId', 'name', 'content', 'createdBy', 'changeReason'] as const)
      rejects(PolicySchema, arb.policy, f, fc.constant(''));
  });
  it('values outside each enum', () => {
    rejects(PolicySchema, arb.policy, 'scope', notIn(['enterprise', 'org', 'team', 'user']));
    rejects(PolicySchema, arb.policy, 'status', notIn(['draft', 'active', 'deprecated']));
    rejects(PolicySchema, arb.policy, 'domain', fc.constantFrom('agent_to_agent', 'Models', 'policy', ''));
    rejects(TaskSchema, arb.task, 'classification', fc.constantFrom('secret', 'Public', 'top-secret', ''));
    rejects(ConnectorSchema, arb.connector, 'type', fc.constantFrom('jira', 'slack', 'Mail', ''));
    rejects(ExchangeSchema, arb.exchange, 'exchangeType', fc.constantFrom('query', 'commitment', ''));
    rejects(ExchangeSchema, arb.exchange, 'outcome', fc.constantFrom('done', 'open', ''));
    rejects(AuditEntrySchema, arb.auditEntry, 'actionType', fc.constantFrom('login', 'tool-invocation', ''));
    rejects(AuditEntrySchema, arb.auditEntry, 'policyResult', fc.constantFrom('allowed', 'approve', ''));
    rejects(
      DataClassificationSchema,
      arb.dataClassification,
      'assignedBy',
      fc.constantFrom('ai', 'admin', ''),
    );
  });
  it('non-semver versions', () => {
    rejects(
      PolicySchema,
      arb.policy,
      'version',
      fc.constantFrom('1', '1.0', 'v1.0.0', '01.0.0', '1.0.0.0', '1.0.0-', '1.0.0+', ' 1.0.0', 'latest', ''),
    );
    for (const ok of ['0.0.0', '1.2.3', '10.20.30-rc.1', '1.0.0-alpha+001', '1.0.0+20130313144700'])
      expect(PolicySchema.safeParse(makePolicy({ version: ok })).success, ok).toBe(true);
  });
  it('out-of-range numbers', () => {
    rejects(
      TaskSchema,
      arb.task,
      'priorityScore',
      fc.oneof(fc.integer({ max: -1 }), fc.integer({ min: 101 })),
    );
    rejects(TaskSchema, arb.task, 'priorityScore', fc.double({ min: 0.01, max: 99.99, noInteger: true }));
    rejects(
      TaskSchema,
      arb.task,
      'correlationConfidence',
      fc.oneof(fc.double({ max: -0.0001, noNaN: true }), fc.double({ min: 1.0001, noNaN: true })),
    );
    rejects(ExchangeSchema, arb.exchange, 'currentRound', fc.integer({ max: -1 }));
    rejects(ExchangeSchema, arb.exchange, 'maxRounds', fc.integer({ max: 0 }));
  });
  it('malformed ids and timestamps', () => {
    rejects(PolicySchema, arb.policy, 'id', fc.constantFrom('not-a-uuid', '1234', ''));
    rejects(
      PolicySchema,
      arb.policy,
      'createdAt',
      fc.constantFrom('yesterday', '2025-13-01T00:00:00Z', '2025-01-01', ''),
    );
    rejects(AuditEntrySchema, arb.auditEntry, 'id', fc.string({ maxLength: 25 }));
    rejects(AuditEntrySchema, arb.auditEntry, 'id', fc.string({ minLength: 27, maxLength: 40 }));
  });
});

describe('defaults as the spec says', () => {
  it('Policy status defaults to draft', () => {
    const { status: _s, ...rest } = makePolicy();
    expect(PolicySchema.parse(rest).status).toBe('draft');
  });
  it('Exchange maxRounds defaults to 3 (INTERCHANGE_DEFAULT_MAX_ROUNDS), currentRound 0, in_progress', () => {
    expect(INTERCHANGE_DEFAULT_MAX_ROUNDS).toBe(3);
    const x = ExchangeSchema.parse({
      exchangeId: crypto.randomUUID(),
      tenantId: 't',
      conversationId: crypto.randomUUID(),
      initiatorAgentId: 'a',
      initiatorUserId: 'u',
      responderAgentId: 'b',
      responderUserId: 'v',
      exchangeType: 'information_query',
      classificationLevel: 'public',
      policyApplied: 'p',
      channel: 'chat',
      startedAt: '2025-01-01T00:00:00.000Z',
    });
    expect(x).toMatchObject({
      maxRounds: 3,
      currentRound: 0,
      outcome: 'in_progress',
      endedAt: null,
      escalationReason: null,
    });
  });
  it('AgentIdentityConfig defaults are exactly the spec table', () => {
    expect(AgentIdentityConfigSchema.parse({})).toEqual({
      canReceiveQueries: true,
      canAutoRespond: true,
      canMakeCommitments: false,
      maxClassificationShared: 'internal',
      supportedExchangeTypes: ['information_query', 'commitment_request', 'meeting_scheduling'],
      maxRoundsAccepted: 3,
    });
    expect([...EXCHANGE_TYPES]).toHaveLength(3);
    expect(AgentIdentityConfigSchema.safeParse({ unknownKey: 1 }).success).toBe(false);
  });
  it('Connector permissions default to read, status active, userId null (tenant-wide)', () => {
    const c = ConnectorSchema.parse({
      id: crypto.randomUUID(),
      type: 'mail',
      tenantId: 't',
      defaultClassification: 'internal',
      credentialsRef: 'ref',
      createdAt: '2025-01-01T00:00:00.000Z',
    });
    expect(c).toMatchObject({
      permissions: 'read',
      status: 'active',
      userId: null,
      config: {},
      lastSyncAt: null,
    });
  });
  it('AuditEntry input defaults: actionDetail {}, dataAccessed [], policyReason "", nullables null', () => {
    const e = AuditEntryInputSchema.parse({
      tenantId: 't',
      userId: 'u',
      actionType: 'model_call',
      policyApplied: 'p',
      policyResult: 'allow',
      outcome: 'success',
      requestId: 'r',
    });
    expect(e).toMatchObject({
      actionDetail: {},
      dataAccessed: [],
      policyReason: '',
      modelUsed: null,
      modelTokens: null,
    });
  });
});

describe('AgentIdentity', () => {
  it('canMakeCommitments is always false', () => {
    fc.assert(
      fc.property(arb.agentIdentity, (id) => {
        expect(AgentIdentitySchema.parse(id).canMakeCommitments).toBe(false);
        expect(AgentIdentitySchema.safeParse({ ...id, canMakeCommitments: true }).success).toBe(false);
      }),
      { numRuns: 50 },
    );
  });
});

describe('API forms', () => {
  it('envelope protocolVersion is 1.0 only', () => {
    const env = {
      protocolVersion: '1.0',
      messageType: 'agent-generated',
      replyPolicy: 'agent-ok',
      exchangeId: crypto.randomUUID(),
      currentRound: 1,
      maxRounds: 3,
      classificationLevel: 'internal',
      aiDisclosureLabel: 'Sent by the assistant of Alice',
    };
    expect(EnvelopeSchema.parse(env)).toEqual(env);
    expect(EnvelopeSchema.safeParse({ ...env, protocolVersion: '2.0' }).success).toBe(false);
  });
  it('connector create uses credentials_secret_ref; the view exposes credentialsSecretRef', () => {
    expect(ConnectorCreateSchema.safeParse({ type: 'mail', credentialsRef: 'x' }).success).toBe(false);
    expect(ConnectorCreateSchema.parse({ type: 'mail', credentials_secret_ref: 'x' })).toEqual({
      type: 'mail',
      credentials_secret_ref: 'x',
      config: {},
    });
    const c = makeConnector({ credentialsRef: 'tracker-token' });
    expect(toConnectorView(c)).toEqual({
      id: c.id,
      type: c.type,
      tenantId: c.tenantId,
      credentialsSecretRef: 'tracker-token',
      config: c.config,
      status: c.status,
      createdAt: c.createdAt,
    });
  });
  it('PolicyCreate accepts generated bodies', () => {
    fc.assert(
      fc.property(arb.policyCreate, (body) => {
        expect(PolicyCreateSchema.parse(body)).toEqual(body);
      }),
    );
  });
});
