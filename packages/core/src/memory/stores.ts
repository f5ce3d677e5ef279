import type { ClassificationLevel } from '../classification';
import type {
  BriefingStore,
  ClassificationStore,
  ConnectorStore,
  ExchangeStore,
  PolicyFilter,
  PolicyStore,
  SessionRecord,
  SessionStore,
  TaskStore,
  TenantStore,
  WritableSecretStore,
} from '../ports/stores';
import type {
  Briefing,
  Connector,
  ConnectorStatus,
  DataClassification,
  Exchange,
  Policy,
  Task,
  TaskStatus,
  Tenant,
} from '../resources';
import { byKeys, copy, TenantMap } from './util';

export class InMemoryTenantStore implements TenantStore {
  readonly #tenants = new Map<string, Tenant>();
  async ensure(tenant: { id: string; name?: string }, now: Date): Promise<Tenant> {
    let stored = this.#tenants.get(tenant.id);
    if (!stored) {
      stored = {
        id: tenant.id,
        name: tenant.name ?? tenant.id,
        status: 'active',
        createdAt: now.toISOString(),
      };
      this.#tenants.set(tenant.id, stored);
    }
    return copy(stored);
  }
  async get(id: string): Promise<Tenant | undefined> {
    const t = this.#tenants.get(id);
    return t && copy(t);
  }
  async list(): Promise<Tenant[]> {
    return [...this.#tenants.values()].sort(byKeys((t) => t.id)).map(copy);
  }
}

export function matchesPolicyFilter(p: Policy, filter: PolicyFilter = {}): boolean {
  if (filter.scope && p.scope !== filter.scope) return false;
  if (filter.domain && p.domain !== filter.domain) return false;
  if (filter.status !== undefined) {
    const statuses: readonly string[] = typeof filter.status === 'string' ? [filter.status] : filter.status;
    if (!statuses.includes(p.status)) return false;
  }
  if (filter.targets && !filter.targets.some((t) => t.scope === p.scope && t.scopeId === p.scopeId))
    return false;
  return true;
}

export class InMemoryPolicyStore implements PolicyStore {
  readonly #rows = new TenantMap<Policy>();
  async insert(policy: Policy): Promise<void> {
    if (this.#rows.has(policy.tenantId, policy.id)) throw new Error(`policy ${policy.id} already exists`);
    this.#rows.set(policy.tenantId, policy.id, copy(policy));
  }
  async update(policy: Policy): Promise<boolean> {
    if (!this.#rows.has(policy.tenantId, policy.id)) return false;
    this.#rows.set(policy.tenantId, policy.id, copy(policy));
    return true;
  }
  async get(tenantId: string, id: string): Promise<Policy | undefined> {
    const p = this.#rows.get(tenantId, id);
    return p && copy(p);
  }
  async list(tenantId: string, filter?: PolicyFilter): Promise<Policy[]> {
    return this.#rows
      .values(tenantId)
      .filter((p) => matchesPolicyFilter(p, filter))
      .sort(
        byKeys(
          (p) => p.createdAt,
          (p) => p.id,
        ),
      )
      .map(copy);
  }
  async count(tenantId: string, filter?: PolicyFilter): Promise<number> {
    return this.#rows.values(tenantId).filter((p) => matchesPolicyFilter(p, filter)).length;
  }
}

export class InMemoryExchangeStore implements ExchangeStore {
  readonly #rows = new TenantMap<Exchange>();
  async insert(exchange: Exchange): Promise<void> {
    if (this.#rows.has(exchange.tenantId, exchange.exchangeId)) {
      throw new Error(`exchange ${exchange.exchangeId} already exists`);
    }
    this.#rows.set(exchange.tenantId, exchange.exchangeId, copy(exchange));
  }
  async update(exchange: Exchange, expectedRound: number): Promise<boolean> {
    const stored = this.#rows.get(exchange.tenantId, exchange.exchangeId);
    if (!stored || stored.currentRound !== expectedRound) return false;
    this.#rows.set(exchange.tenantId, exchange.exchangeId, copy(exchange));
    return true;
  }
  async get(tenantId: string, exchangeId: string): Promise<Exchange | undefined> {
    const e = this.#rows.get(tenantId, exchangeId);
    return e && copy(e);
  }
  async listByConversation(tenantId: string, conversationId: string): Promise<Exchange[]> {
    return this.#rows
      .values(tenantId)
      .filter((e) => e.conversationId === conversationId)
      .sort(
        byKeys(
          (e) => e.startedAt,
          (e) => e.exchangeId,
        ),
      )
      .map(copy);
  }
}

export class InMemoryConnectorStore implements ConnectorStore {
  readonly #rows = new TenantMap<Connector>();
  async insert(connector: Connector): Promise<void> {
    if (this.#rows.has(connector.tenantId, connector.id))
      throw new Error(`connector ${connector.id} already exists`);
    this.#rows.set(connector.tenantId, connector.id, copy(connector));
  }
  async update(connector: Connector): Promise<boolean> {
    if (!this.#rows.has(connector.tenantId, connector.id)) return false;
    this.#rows.set(connector.tenantId, connector.id, copy(connector));
    return true;
  }
  async get(tenantId: string, id: string): Promise<Connector | undefined> {
    const c = this.#rows.get(tenantId, id);
    return c && copy(c);
  }
  async list(
    tenantId: string,
    filter: { status?: ConnectorStatus; type?: Connector['type'] } = {},
  ): Promise<Connector[]> {
    return this.#rows
      .values(tenantId)
      .filter(
        (c) => (!filter.status || c.status === filter.status) && (!filter.type || c.type === filter.type),
      )
      .sort(
        byKeys(
          (c) => c.createdAt,
          (c) => c.id,
        ),
      )
      .map(copy);
  }
}

export class InMemoryTaskStore implements TaskStore {
  readonly #rows = new TenantMap<Task>();
  async put(task: Task): Promise<void> {
    this.#rows.set(task.tenantId, task.id, copy(task));
  }
  async get(tenantId: string, id: string): Promise<Task | undefined> {
    const t = this.#rows.get(tenantId, id);
    return t && copy(t);
  }
  async list(
    tenantId: string,
    filter: { userId?: string; status?: readonly TaskStatus[] } = {},
  ): Promise<Task[]> {
    return this.#rows
      .values(tenantId)
      .filter(
        (t) =>
          (!filter.userId || t.userId === filter.userId) &&
          (!filter.status || filter.status.includes(t.status)),
      )
      .sort(
        byKeys(
          (t) => t.discoveredAt,
          (t) => t.id,
        ),
      )
      .map(copy);
  }
  async delete(tenantId: string, id: string): Promise<boolean> {
    return this.#rows.delete(tenantId, id);
  }
}

export class InMemoryBriefingStore implements BriefingStore {
  readonly #rows = new TenantMap<Briefing>();
  async insert(briefing: Briefing): Promise<void> {
    if (this.#rows.has(briefing.tenantId, briefing.id))
      throw new Error(`briefing ${briefing.id} already exists`);
    this.#rows.set(briefing.tenantId, briefing.id, copy(briefing));
  }
  async get(tenantId: string, id: string): Promise<Briefing | undefined> {
    const b = this.#rows.get(tenantId, id);
    return b && copy(b);
  }
  async latest(tenantId: string, userId: string): Promise<Briefing | undefined> {
    const mine = this.#rows
      .values(tenantId)
      .filter((b) => b.userId === userId)
      .sort(
        byKeys(
          (b) => b.generatedAt,
          (b) => b.id,
        ),
      );
    const last = mine.at(-1);
    return last && copy(last);
  }
  async markDelivered(tenantId: string, id: string, deliveredAt: string): Promise<boolean> {
    const b = this.#rows.get(tenantId, id);
    if (!b) return false;
    b.deliveredAt = deliveredAt;
    return true;
  }
}

export class InMemoryClassificationStore implements ClassificationStore {
  readonly #rows = new TenantMap<DataClassification>();
  async put(record: DataClassification): Promise<void> {
    this.#rows.set(record.tenantId, record.dataRef, copy(record));
  }
  async get(tenantId: string, dataRef: string): Promise<DataClassification | undefined> {
    const r = this.#rows.get(tenantId, dataRef);
    return r && copy(r);
  }
  async list(tenantId: string, filter: { level?: ClassificationLevel } = {}): Promise<DataClassification[]> {
    return this.#rows
      .values(tenantId)
      .filter((r) => !filter.level || r.level === filter.level)
      .sort(byKeys((r) => r.dataRef))
      .map(copy);
  }
}

export class InMemorySessionStore implements SessionStore {
  readonly #rows = new Map<string, SessionRecord>();
  async create(session: SessionRecord): Promise<void> {
    if (this.#rows.has(session.idHash)) throw new Error('session already exists');
    this.#rows.set(session.idHash, copy(session));
  }
  async get(idHash: string): Promise<SessionRecord | undefined> {
    const s = this.#rows.get(idHash);
    return s && copy(s);
  }
  async delete(idHash: string): Promise<boolean> {
    return this.#rows.delete(idHash);
  }
  async deleteExpired(now: Date): Promise<number> {
    let n = 0;
    for (const [k, s] of this.#rows) {
      if (Date.parse(s.expiresAt) < now.getTime()) {
        this.#rows.delete(k);
        n++;
      }
    }
    return n;
  }
}

export class InMemorySecretStore implements WritableSecretStore {
  readonly #secrets: Map<string, string>;
  constructor(initial: Record<string, string> = {}) {
    this.#secrets = new Map(Object.entries(initial));
  }
  async get(ref: string): Promise<string | undefined> {
    return this.#secrets.get(ref);
  }
  async set(ref: string, value: string): Promise<void> {
    this.#secrets.set(ref, value);
  }
}

/**
 * The `env` secret store of the reference server: reference `db-password` (or `DB_PASSWORD`)
 * reads `AGENTGOV_SECRET_DB_PASSWORD`. References are upper-cased and every character outside
 * [A-Z0-9_] becomes `_`.
 */
export class EnvSecretStore implements WritableSecretStore {
  readonly #env: Record<string, string | undefined>;
  readonly #prefix: string;
  constructor(env: Record<string, string | undefined> = process.env, prefix = 'AGENTGOV_SECRET_') {
    this.#env = env;
    this.#prefix = prefix;
  }
  static variableName(ref: string, prefix = 'AGENTGOV_SECRET_'): string {
    return prefix + ref.toUpperCase().replace(/[^A-Z0-9_]/g, '_');
  }
  async get(ref: string): Promise<string | undefined> {
    const v = this.#env[EnvSecretStore.variableName(ref, this.#prefix)];
    return v === undefined || v === '' ? undefined : v;
  }
  async set(ref: string, value: string): Promise<void> {
    this.#env[EnvSecretStore.variableName(ref, this.#prefix)] = value;
  }
}
