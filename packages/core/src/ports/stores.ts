/**
 * Store ports: the small interfaces every persistence backend implements (in-memory here,
 * SQL in `@agentgov/store-kysely`). Each one has a conformance suite in `@agentgov/core/testing`.
 *
 * Conventions shared by every store:
 * - every method is tenant-scoped: a record of another tenant is invisible (`undefined`/absent);
 * - records go in and come out as the zod-validated resource types of `../resources` (ISO strings
 *   for timestamps), and what comes out equals what went in;
 * - a store never validates business rules — services do — but it never half-writes: a method
 *   either applies completely or throws.
 */
import type { ClassificationLevel } from '../classification';
import type {
  ActionType,
  AuditEntry,
  Briefing,
  Connector,
  ConnectorStatus,
  DataClassification,
  Exchange,
  Policy,
  PolicyDomain,
  PolicyResult,
  PolicyStatus,
  Role,
  Scope,
  Task,
  TaskStatus,
  Tenant,
} from '../resources';

export interface CallOptions {
  signal?: AbortSignal;
}

// ---------------------------------------------------------------------------------------------

export interface TenantStore {
  /** Registers the tenant when unknown (idempotent, race-free); returns the stored record. */
  ensure(tenant: { id: string; name?: string }, now: Date): Promise<Tenant>;
  get(id: string): Promise<Tenant | undefined>;
  /** All tenants, ordered by id. */
  list(): Promise<Tenant[]>;
}

// ---------------------------------------------------------------------------------------------

export interface ScopeRef {
  scope: Scope;
  scopeId: string;
}

export interface PolicyFilter {
  scope?: Scope;
  domain?: PolicyDomain;
  /** One status or several; all statuses when absent. */
  status?: PolicyStatus | readonly PolicyStatus[];
  /** Only policies that target one of these nodes. */
  targets?: readonly ScopeRef[];
}

export interface PolicyStore {
  /** Inserts a new policy; throws when the id exists. */
  insert(policy: Policy): Promise<void>;
  /** Replaces the stored policy with the same tenant and id; false when there is none. */
  update(policy: Policy): Promise<boolean>;
  get(tenantId: string, id: string): Promise<Policy | undefined>;
  /** Policies of the tenant matching the filter, ordered by createdAt then id. */
  list(tenantId: string, filter?: PolicyFilter): Promise<Policy[]>;
  count(tenantId: string, filter?: PolicyFilter): Promise<number>;
}

// ---------------------------------------------------------------------------------------------

/** One stored link of a tenant's audit hash chain (see `@agentgov/audit` for how it is computed). */
export interface AuditRecord {
  entry: AuditEntry;
  /** 1-based position in the tenant's chain, gap-free. */
  seq: number;
  /** Hash of the previous record of the tenant (hex); 64 zeros for the first. */
  prevHash: string;
  /** Hash of this record (hex). */
  hash: string;
  /**
   * Keyed commitments (HMAC, hex) of the personal identifiers in `entry`, by path
   * (`userId`, `actionDetail.initiatorUserId`, …). The hash covers these, not the clear values.
   */
  commitments: Record<string, string>;
}

export interface ChainHead {
  seq: number;
  hash: string;
}

export interface AuditFilter {
  userId?: string;
  /** Entries of any of these users (org-scoped reads). */
  userIds?: readonly string[];
  actionType?: ActionType;
  policyResult?: PolicyResult;
  requestId?: string;
  /** Inclusive lower bound on `timestamp` (ISO 8601). */
  from?: string;
  /** Inclusive upper bound on `timestamp` (ISO 8601). */
  to?: string;
}

export interface AuditScanOptions {
  filter?: AuditFilter;
  /** First seq to read (inclusive). */
  fromSeq?: number;
  /** Last seq to read (inclusive). */
  toSeq?: number;
  /** Records fetched per round trip. */
  batchSize?: number;
  signal?: AbortSignal;
}

export interface AuditCheckpoint {
  tenantId: string;
  /** Number of records covered (records with seq 1..treeSize). */
  treeSize: number;
  /** Merkle tree root over the record hashes (hex). */
  rootHash: string;
  issuedAt: string;
  /** The signed tree head, a compact JWS. */
  jws: string;
}

export interface AuditStore {
  /**
   * Appends records to the tenant's chain. The store serializes appends per tenant (also across
   * processes sharing the database): it reads the current head, calls `build(head)` and stores
   * the records it returns atomically, all while holding the tenant's lock. `build` must return
   * records with seq = head.seq + 1, + 2, … and prevHash linking to head.hash. Appends of
   * different tenants never wait for each other.
   */
  append(
    tenantId: string,
    build: (head: ChainHead | undefined) => AuditRecord[] | Promise<AuditRecord[]>,
    options?: CallOptions,
  ): Promise<AuditRecord[]>;
  head(tenantId: string): Promise<ChainHead | undefined>;
  get(tenantId: string, id: string): Promise<AuditRecord | undefined>;
  /** A page of matching records ordered by seq (asc by default) and the total count of matches. */
  query(
    tenantId: string,
    filter: AuditFilter,
    page: { offset: number; limit: number; order?: 'asc' | 'desc' },
  ): Promise<{ records: AuditRecord[]; total: number }>;
  /** Streams matching records in seq order, fetching `batchSize` at a time (bounded memory). */
  scan(tenantId: string, options?: AuditScanOptions): AsyncIterable<AuditRecord>;
  /**
   * GDPR erasure: replaces the clear value `userId` with `replacement` in `entry.userId` and in
   * every `actionDetail` path listed in a record's commitments whose value is `userId`. Nothing
   * else changes (hash, prevHash, commitments stay). Returns the number of records touched.
   */
  anonymize(tenantId: string, userId: string, replacement: string): Promise<number>;
  /** Tenants that have at least one record, ordered by id. */
  tenants(): Promise<string[]>;
  /** Number of records of a tenant, or of all tenants. */
  count(tenantId?: string): Promise<number>;
  saveCheckpoint(checkpoint: AuditCheckpoint): Promise<void>;
  /** Checkpoints of the tenant ordered by treeSize. */
  checkpoints(tenantId: string): Promise<AuditCheckpoint[]>;
}

// ---------------------------------------------------------------------------------------------

export interface ExchangeStore {
  insert(exchange: Exchange): Promise<void>;
  /**
   * Replaces the stored exchange only if its stored `currentRound` equals `expectedRound`
   * (compare-and-set, so two concurrent rounds cannot both pass a limit); false otherwise.
   */
  update(exchange: Exchange, expectedRound: number): Promise<boolean>;
  get(tenantId: string, exchangeId: string): Promise<Exchange | undefined>;
  /** Exchanges of one conversation ordered by startedAt then id. */
  listByConversation(tenantId: string, conversationId: string): Promise<Exchange[]>;
}

// ---------------------------------------------------------------------------------------------

export interface ConnectorStore {
  insert(connector: Connector): Promise<void>;
  update(connector: Connector): Promise<boolean>;
  get(tenantId: string, id: string): Promise<Connector | undefined>;
  /** Connectors of the tenant ordered by createdAt then id. */
  list(
    tenantId: string,
    filter?: { status?: ConnectorStatus; type?: Connector['type'] },
  ): Promise<Connector[]>;
}

// ---------------------------------------------------------------------------------------------

export interface TaskStore {
  /** Inserts or replaces by (tenantId, id). */
  put(task: Task): Promise<void>;
  get(tenantId: string, id: string): Promise<Task | undefined>;
  /** Tasks of the tenant (optionally of one user / statuses) ordered by discoveredAt then id. */
  list(tenantId: string, filter?: { userId?: string; status?: readonly TaskStatus[] }): Promise<Task[]>;
  /** Permanently deletes (retention purge); false when absent. */
  delete(tenantId: string, id: string): Promise<boolean>;
}

// ---------------------------------------------------------------------------------------------

export interface BriefingStore {
  insert(briefing: Briefing): Promise<void>;
  get(tenantId: string, id: string): Promise<Briefing | undefined>;
  /** The most recently generated briefing of a user. */
  latest(tenantId: string, userId: string): Promise<Briefing | undefined>;
  markDelivered(tenantId: string, id: string, deliveredAt: string): Promise<boolean>;
}

// ---------------------------------------------------------------------------------------------

export interface ClassificationStore {
  /** Inserts or replaces the record of (tenantId, dataRef). */
  put(record: DataClassification): Promise<void>;
  get(tenantId: string, dataRef: string): Promise<DataClassification | undefined>;
  /** Records of the tenant ordered by dataRef. */
  list(tenantId: string, filter?: { level?: ClassificationLevel }): Promise<DataClassification[]>;
}

// ---------------------------------------------------------------------------------------------

export interface SessionRecord {
  /** SHA-256 (hex) of the session id: the id itself is never stored. */
  idHash: string;
  tenantId: string;
  userId: string;
  email: string;
  roles: Role[];
  orgUnit: string | null;
  team: string | null;
  createdAt: string;
  expiresAt: string;
}

export interface SessionStore {
  create(session: SessionRecord): Promise<void>;
  /** The session, also when expired (the caller tells expired from absent). */
  get(idHash: string): Promise<SessionRecord | undefined>;
  delete(idHash: string): Promise<boolean>;
  /** Removes sessions that expired before `now`; returns how many. */
  deleteExpired(now: Date): Promise<number>;
}

// ---------------------------------------------------------------------------------------------

/** Reads secrets by reference. Secrets are never stored by agentgov itself, only referenced. */
export interface SecretStore {
  get(ref: string): Promise<string | undefined>;
}

/** A secret store that can also be written (tests, development, key generation). */
export interface WritableSecretStore extends SecretStore {
  set(ref: string, value: string): Promise<void>;
}
