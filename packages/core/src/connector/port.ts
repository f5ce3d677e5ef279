import type { ConnectorType } from '../classification-lattice';
import type { SecretRefHolders } from '../secret/port';
import type { Connector, ConnectorStatus } from './schema';

/** A connector claimed for a scheduled pull, with its count of consecutive failed pulls. */
export interface ConnectorSyncClaim {
  connector: Connector;
  failures: number;
}

/** What a scheduled pull leaves behind (`ConnectorStore.finishSync`). */
export interface ConnectorSyncResult {
  /** When the pull ended; becomes `lastSyncAt` when `ok`. */
  at: string;
  ok: boolean;
  /** Consecutive failed pulls after this one (0 after a success). */
  failures: number;
  /** `active`, or `error` once failures reached the threshold. */
  status: 'active' | 'error';
  /** Why the connector is in error (null when active). */
  errorDetails: string | null;
  /** When the next pull is due. */
  nextSyncAt: string;
}

export interface ConnectorStore extends SecretRefHolders {
  insert(connector: Connector): Promise<void>;
  update(connector: Connector): Promise<boolean>;
  get(tenantId: string, id: string): Promise<Connector | undefined>;
  /** Connectors of the tenant ordered by createdAt then id. */
  list(
    tenantId: string,
    filter?: { status?: ConnectorStatus; type?: Connector['type'] },
  ): Promise<Connector[]>;
  /**
   * Claims up to `limit` connectors due for a scheduled pull, across tenants: of one of `types`,
   * status `active` or `error`, never pulled or next pull at or before `now`; oldest due first
   * (never pulled first, then by due time, createdAt, id). Each claimed connector's next pull moves
   * to `leaseUntil`, so no other process claims it before then: two concurrent calls never claim
   * the same connector. A new connector is due at once; `update` leaves the pull state as it is.
   */
  claimSync(
    now: string,
    leaseUntil: string,
    limit: number,
    types: readonly ConnectorType[],
  ): Promise<ConnectorSyncClaim[]>;
  /**
   * Records the end of a pull: failures, next due time, status and errorDetails, and `lastSyncAt`
   * = `at` when it succeeded. False (nothing written) when the connector is absent or was disabled
   * meanwhile — a disabled connector stays disabled.
   */
  finishSync(tenantId: string, id: string, result: ConnectorSyncResult): Promise<boolean>;
  /**
   * Makes the next pull due at `at` (e.g. now, after an admin changed the config or credentials),
   * keeping the failure count. False when the connector is absent.
   */
  scheduleSync(tenantId: string, id: string, at: string): Promise<boolean>;
  /**
   * Binds secret references to `tenantId` for good, first come first served: the secret store is
   * one namespace for every tenant, and a connector sends its credentials to a URL its tenant's
   * admin chose, so a reference one tenant's connector named never resolves for another tenant
   * (`tenantSecrets`) — not after that connector is disabled or its reference changed either.
   * References compare by `secretRefKey` (`Mail-Token` and `mail_token` are one). Binds each of
   * `refs` that no tenant holds, and returns those another tenant holds (as given, in order;
   * empty when all are `tenantId`'s).
   */
  bindSecretRefs(tenantId: string, refs: readonly string[]): Promise<string[]>;
}
