/**
 * ActivityTracker: which users made an authenticated request recently (`activeUsers` of /metrics).
 * Implementations: memory (one process, `./memory`), Redis (processes sharing Redis).
 */
export interface ActivityTracker {
  /** Records an authenticated request of `userId` at `now` (a later touch replaces an earlier one). */
  touch(tenantId: string, userId: string, now: Date): Promise<void>;
  /**
   * Distinct users of the tenant with a request at or after `since`. Callers ask with a sliding
   * window (`since` = now − window, non-decreasing), so an implementation may forget activity
   * older than a `since` it has been asked about.
   */
  countActive(tenantId: string, since: Date): Promise<number>;
}
