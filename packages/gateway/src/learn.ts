/**
 * What the kernel learns from each authenticated principal's claims (`learn`): its tenant is
 * registered (`TenantStore.ensure`), its org placement written to the directory when it changed,
 * and its activity recorded for /metrics (best effort, at most one write per principal per
 * second). What this process already recorded is remembered, so that most requests write nothing
 * and are answered at once, without a promise (`learnNow`).
 */
import {
  type ActivityTracker,
  type Clock,
  type Logger,
  nowMs,
  type OrgDirectory,
  type Principal,
  type TenantStore,
} from '@agentgov/core';

/** The shortest interval between two activity writes of one principal. */
const TOUCH_INTERVAL_MS = 1000;

export function createLearner(deps: {
  tenants: TenantStore;
  directory: OrgDirectory;
  activity: ActivityTracker;
  clock: Clock;
  logger: Logger;
}) {
  const { directory, activity, clock, logger } = deps;
  // Tenants and org placements already recorded by this process (skip repeated writes).
  const knownTenants = new Set<string>();
  const knownPlacements = new Map<string, string>();
  // When each principal's activity was last written (`learn` coalesces its writes).
  const lastTouched = new Map<string, number>();
  // The keys `learn` uses, per shared principal object (a cached Bearer token's, frozen).
  const learnKeys = new WeakMap<Principal, { key: string; placement: string }>();
  /**
   * `learn` answered at once (no promise) when there is nothing to write — the tenant and the
   * placement known, the activity written less than a second ago — as for most requests.
   */
  function learnNow(p: Principal): Promise<void> | undefined {
    let keys = learnKeys.get(p);
    if (!keys) {
      keys = { key: `${p.tenantId}\u0000${p.userId}`, placement: `${p.orgUnit ?? ''}\u0000${p.team ?? ''}` };
      // Kept only for a shared (frozen) principal: a per-request one would write the map per request.
      if (Object.isFrozen(p)) learnKeys.set(p, keys);
    }
    const { key, placement } = keys;
    if (!knownTenants.has(p.tenantId) || knownPlacements.get(key) !== placement)
      return record(p, key, placement);
    return touch(p, key);
  }
  async function record(p: Principal, key: string, placement: string): Promise<void> {
    if (!knownTenants.has(p.tenantId)) {
      await deps.tenants.ensure({ id: p.tenantId }, clock.now());
      knownTenants.add(p.tenantId);
    }
    if (knownPlacements.get(key) !== placement) {
      await directory.place(p.tenantId, p.userId, {
        orgUnit: p.orgUnit ?? undefined,
        team: p.team ?? undefined,
      });
      knownPlacements.set(key, placement);
    }
    await touch(p, key);
  }
  // Best effort: who was active feeds /metrics only; an activity store that is away (Redis
  // down) must not turn every authenticated request into a 503. At most one write per principal
  // per second (the active-user windows count in minutes and days).
  function touch(p: Principal, key: string): Promise<void> | undefined {
    const at = nowMs(clock);
    const last = lastTouched.get(key);
    if (last !== undefined && Math.abs(at - last) < TOUCH_INTERVAL_MS) return undefined;
    lastTouched.set(key, at);
    return activity.touch(p.tenantId, p.userId, new Date(at)).catch((error: unknown) => {
      lastTouched.delete(key);
      logger.warn('activity tracker unavailable; activity not recorded', { error: String(error) });
    });
  }
  async function learn(p: Principal): Promise<void> {
    await learnNow(p);
  }
  return {
    learnNow,
    learn,
    /** A tenant registered by the kernel itself (the configured ones, at start). */
    tenantKnown: (tenantId: string) => {
      knownTenants.add(tenantId);
    },
  };
}
