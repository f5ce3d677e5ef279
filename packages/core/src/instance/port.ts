/** Instance registry: which gateway processes sharing the stores are alive (`gatewayInstances`). */

/**
 * Live server processes, from a heartbeat each process writes periodically. An instance is live
 * while its last heartbeat has not expired. Implementations: memory (one process), Redis
 * (`@agentgov/gateway`), SQL (`@agentgov/store-kysely`).
 */
export interface InstanceRegistry {
  /** Records that `instanceId` is alive until `now + ttlMs` (replacing its previous expiry). */
  heartbeat(instanceId: string, now: Date, ttlMs: number): Promise<void>;
  /** Number of instances whose last heartbeat expires strictly after `now`. */
  countLive(now: Date): Promise<number>;
  /** Removes the instance (clean shutdown); removing an unknown instance is a no-op. */
  remove(instanceId: string): Promise<void>;
}
