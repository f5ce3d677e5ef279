/**
 * Builders of valid resources for tests: every builder returns a zod-parsed resource with sensible
 * defaults, overridable field by field. Shared by the conformance suites and by other packages.
 */
import { createHash } from 'node:crypto';
import type { AuditCheckpoint, AuditRecord, ChainHead } from '../audit/port';
import { type AuditEntry, AuditEntrySchema } from '../audit/schema';
import { type Briefing, BriefingSchema } from '../briefing/schema';
import { type DataClassification, DataClassificationSchema } from '../classification/schema';
import { type Connector, ConnectorSchema } from '../connector/schema';
import { type Exchange, ExchangeSchema } from '../exchange/schema';
import { createUlidFactory, newId } from '../ids';
import { type Policy, PolicySchema } from '../policy/schema';
import type { SessionRecord } from '../session/port';
import { type Task, TaskSchema } from '../task/schema';

/** Fixed epoch of the fixtures: 2025-01-01T00:00:00.000Z. */
export const FIXTURE_EPOCH = Date.UTC(2025, 0, 1);

/** An ISO timestamp `minutes` after the fixture epoch, in canonical `toISOString()` form. */
export function isoAt(minutes: number, extraMs = 0): string {
  return new Date(FIXTURE_EPOCH + minutes * 60_000 + extraMs).toISOString();
}

/** SHA-256 (hex) of a string. */
export function sha256Hex(input: string): string {
  return createHash('sha256').update(input).digest('hex');
}

/** The prevHash of the first record of a chain. */
export const GENESIS_HASH = '0'.repeat(64);

const nextUlid = createUlidFactory();

export function makePolicy(overrides: Partial<Policy> = {}): Policy {
  return PolicySchema.parse({
    id: newId(),
    tenantId: 'tenant-a',
    scope: 'enterprise',
    scopeId: overrides.tenantId ?? 'tenant-a',
    domain: 'agent-to-agent',
    name: 'Enterprise agent-to-agent policy',
    version: '1.0.0',
    content: 'max_classification: internal\n',
    status: 'active',
    createdBy: 'admin-1',
    createdAt: isoAt(0),
    updatedAt: isoAt(0),
    changeReason: 'initial version',
    ...overrides,
  });
}

export function makeTask(overrides: Partial<Task> = {}): Task {
  return TaskSchema.parse({
    id: newId(),
    tenantId: 'tenant-a',
    userId: 'alice',
    title: 'Review the quarterly plan',
    discoveredAt: isoAt(0),
    ...overrides,
  });
}

export function makeConnector(overrides: Partial<Connector> = {}): Connector {
  return ConnectorSchema.parse({
    id: newId(),
    type: 'tracker',
    tenantId: 'tenant-a',
    defaultClassification: 'internal',
    credentialsRef: 'tracker-token',
    createdAt: isoAt(0),
    ...overrides,
  });
}

export function makeExchange(overrides: Partial<Exchange> = {}): Exchange {
  return ExchangeSchema.parse({
    exchangeId: newId(),
    tenantId: 'tenant-a',
    conversationId: newId(),
    initiatorAgentId: 'agent-alice',
    initiatorUserId: 'alice',
    responderAgentId: 'agent-bob',
    responderUserId: 'bob',
    exchangeType: 'information_query',
    classificationLevel: 'internal',
    policyApplied: 'policy-a2a-1',
    channel: 'chat',
    startedAt: isoAt(0),
    ...overrides,
  });
}

export function makeBriefing(overrides: Partial<Briefing> = {}): Briefing {
  return BriefingSchema.parse({
    id: newId(),
    userId: 'alice',
    tenantId: 'tenant-a',
    generatedAt: isoAt(0),
    deliveryChannel: 'chat',
    ...overrides,
  });
}

export function makeClassification(overrides: Partial<DataClassification> = {}): DataClassification {
  return DataClassificationSchema.parse({
    tenantId: 'tenant-a',
    dataRef: 'mail:msg-1',
    level: 'internal',
    assignedBy: 'connector_default',
    assessedAt: isoAt(0),
    ...overrides,
  });
}

export function makeAuditEntry(overrides: Partial<AuditEntry> = {}): AuditEntry {
  return AuditEntrySchema.parse({
    id: nextUlid(),
    tenantId: 'tenant-a',
    userId: 'alice',
    timestamp: isoAt(0),
    actionType: 'tool_invocation',
    policyApplied: 'policy-1',
    policyResult: 'allow',
    outcome: 'success',
    requestId: `req-${newId()}`,
    ...overrides,
  });
}

export function makeSession(overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    idHash: sha256Hex(newId()),
    tenantId: 'tenant-a',
    userId: 'alice',
    email: 'alice@example.com',
    roles: ['user'],
    orgUnit: 'eng',
    team: 'platform',
    createdAt: isoAt(0),
    expiresAt: isoAt(60),
    lastSeenAt: isoAt(0),
    absoluteExpiresAt: isoAt(720),
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64)',
    ip: '203.0.113.7',
    ...overrides,
  };
}

export function makeCheckpoint(overrides: Partial<AuditCheckpoint> = {}): AuditCheckpoint {
  const treeSize = overrides.treeSize ?? 1;
  return {
    tenantId: 'tenant-a',
    treeSize,
    rootHash: sha256Hex(`root-${treeSize}`),
    issuedAt: isoAt(treeSize),
    jws: `eyJhbGciOiJFZERTQSJ9.eyJ0cmVlU2l6ZSI6${treeSize}.c2lnbmF0dXJl`,
    ...overrides,
  };
}

/**
 * Links entries into chain records after `head`: seq head.seq+1…, prevHash = previous hash,
 * hash = sha256 of a deterministic string covering prevHash, seq and the entry. This is a test
 * chain, not the audit package's canonical hash — stores never verify hashes, only linkage.
 * `commitments` (by path) are attached to every record when given.
 */
export function linkRecords(
  head: ChainHead | undefined,
  entries: readonly AuditEntry[],
  commitments: (entry: AuditEntry) => Record<string, string> = () => ({
    userId: sha256Hex('commit'),
  }),
): AuditRecord[] {
  let seq = head?.seq ?? 0;
  let prevHash = head?.hash ?? GENESIS_HASH;
  return entries.map((entry) => {
    seq += 1;
    const hash = sha256Hex(`${prevHash}|${seq}|${JSON.stringify(entry)}`);
    const record: AuditRecord = { entry, seq, prevHash, hash, commitments: commitments(entry) };
    prevHash = hash;
    return record;
  });
}

/** Appends entries (all of one tenant) as one batch through `store.append`, linking them to the head. */
export function appendEntries(
  store: {
    append(
      tenantId: string,
      build: (head: ChainHead | undefined) => AuditRecord[] | Promise<AuditRecord[]>,
    ): Promise<AuditRecord[]>;
  },
  tenantId: string,
  entries: readonly AuditEntry[],
  commitments?: (entry: AuditEntry) => Record<string, string>,
): Promise<AuditRecord[]> {
  return store.append(tenantId, (head) => linkRecords(head, entries, commitments));
}
