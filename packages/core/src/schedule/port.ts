/**
 * Scheduled runs: which run of a periodic job has been taken, so that each run happens once even
 * when several server processes share the stores or a process catches up after a restart. A run
 * is named by a key the job derives from its schedule (e.g. `alice:2026-11-26` for a user's daily
 * briefing of that local day). Implementations: memory (one process), SQL (`@agentgov/store-kysely`,
 * a unique row per run).
 */
export interface ScheduledRun {
  tenantId: string;
  /** The job, e.g. `daily-briefing`. */
  job: string;
  /** The run of the job, e.g. `<userId>:<local date>`. */
  key: string;
  /** Who took it (an instance id). */
  owner: string;
  claimedAt: string;
}

export interface ScheduledRunStore {
  /**
   * Takes the run: true for the first caller, false when the run was already taken (by anyone,
   * at any time since). Concurrent claims of one run: exactly one gets true.
   */
  claim(run: ScheduledRun): Promise<boolean>;
  /** Gives a run back (it failed and may be taken again); false when it was not taken. */
  release(tenantId: string, job: string, key: string): Promise<boolean>;
  get(tenantId: string, job: string, key: string): Promise<ScheduledRun | undefined>;
}
