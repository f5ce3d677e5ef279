import type { ConnectorType } from '../classification-lattice';
import { byKeys, copy, TenantMap } from '../memory-util';
import { secretRefKey } from '../secret/port';
import type { UndoJournal } from '../unit-of-work/journal';
import type { ConnectorStore, ConnectorSyncClaim, ConnectorSyncResult } from './port';
import type { Connector, ConnectorStatus } from './schema';

interface SyncState {
  failures: number;
  nextSyncAt: string | null;
}

export class InMemoryConnectorStore implements ConnectorStore {
  readonly #rows = new TenantMap<Connector>();
  readonly #sync = new TenantMap<SyncState>();
  /** Secret reference key → the tenant it is bound to (`bindSecretRefs`). */
  readonly #refOwners = new Map<string, string>();
  async insert(connector: Connector): Promise<void> {
    if (this.#rows.has(connector.tenantId, connector.id))
      throw new Error(`connector ${connector.id} already exists`);
    this.#rows.set(connector.tenantId, connector.id, copy(connector));
    this.#sync.set(connector.tenantId, connector.id, { failures: 0, nextSyncAt: null });
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
  async claimSync(
    now: string,
    leaseUntil: string,
    limit: number,
    types: readonly ConnectorType[],
  ): Promise<ConnectorSyncClaim[]> {
    const nowMs = Date.parse(now);
    const due: { c: Connector; s: SyncState }[] = [];
    for (const tenantId of this.#rows.tenants()) {
      for (const c of this.#rows.values(tenantId)) {
        const s = this.#sync.get(tenantId, c.id) ?? { failures: 0, nextSyncAt: null };
        if (c.status === 'disabled' || !types.includes(c.type)) continue;
        if (s.nextSyncAt !== null && Date.parse(s.nextSyncAt) > nowMs) continue;
        due.push({ c, s });
      }
    }
    due.sort(
      byKeys(
        ({ s }) => (s.nextSyncAt === null ? 0 : 1),
        ({ s }) => (s.nextSyncAt === null ? 0 : Date.parse(s.nextSyncAt)),
        ({ c }) => c.createdAt,
        ({ c }) => c.id,
      ),
    );
    return due.slice(0, Math.max(0, limit)).map(({ c, s }) => {
      this.#sync.set(c.tenantId, c.id, { failures: s.failures, nextSyncAt: leaseUntil });
      return { connector: copy(c), failures: s.failures };
    });
  }
  async finishSync(tenantId: string, id: string, result: ConnectorSyncResult): Promise<boolean> {
    const c = this.#rows.get(tenantId, id);
    if (!c || c.status === 'disabled') return false;
    this.#rows.set(tenantId, id, {
      ...c,
      status: result.status,
      errorDetails: result.errorDetails,
      ...(result.ok ? { lastSyncAt: result.at } : {}),
    });
    this.#sync.set(tenantId, id, { failures: result.failures, nextSyncAt: result.nextSyncAt });
    return true;
  }
  async scheduleSync(tenantId: string, id: string, at: string): Promise<boolean> {
    const s = this.#sync.get(tenantId, id);
    if (!s || !this.#rows.has(tenantId, id)) return false;
    this.#sync.set(tenantId, id, { ...s, nextSyncAt: at });
    return true;
  }
  async bindSecretRefs(tenantId: string, refs: readonly string[]): Promise<string[]> {
    const held: string[] = [];
    for (const ref of refs) {
      const key = secretRefKey(ref);
      const owner = this.#refOwners.get(key);
      if (owner === undefined) this.#refOwners.set(key, tenantId);
      else if (owner !== tenantId) held.push(ref);
    }
    return held;
  }
  /** This store as seen by an in-memory transaction: each write records its undo (`InMemoryUnitOfWork`). */
  journaled(journal: UndoJournal): ConnectorStore {
    const rows = this.#rows;
    return {
      insert: async (connector) => {
        await this.insert(connector);
        journal.record(() => {
          rows.delete(connector.tenantId, connector.id);
          this.#sync.delete(connector.tenantId, connector.id);
        });
      },
      update: async (connector) => {
        const before = rows.get(connector.tenantId, connector.id);
        const updated = await this.update(connector);
        if (updated && before) journal.record(() => rows.set(connector.tenantId, connector.id, before));
        return updated;
      },
      claimSync: (now, leaseUntil, limit, types) => this.claimSync(now, leaseUntil, limit, types),
      finishSync: (tenantId, id, result) => this.finishSync(tenantId, id, result),
      scheduleSync: async (tenantId, id, at) => {
        const before = this.#sync.get(tenantId, id);
        const done = await this.scheduleSync(tenantId, id, at);
        if (done && before) journal.record(() => this.#sync.set(tenantId, id, before));
        return done;
      },
      // Not undone by a rollback: in memory, a transaction's writes are seen before it commits,
      // and a reader (`tenantSecrets`) keeps what it was told — a binding stands for good once
      // anyone could see it (on PostgreSQL a reader waits for the transaction instead).
      bindSecretRefs: (tenantId, refs) => this.bindSecretRefs(tenantId, refs),
      get: (tenantId, id) => this.get(tenantId, id),
      list: (tenantId, filter) => this.list(tenantId, filter),
    };
  }
}
