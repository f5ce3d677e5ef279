/**
 * Signed audit checkpoints on a schedule: every `intervalSeconds`, each tenant whose chain grew
 * since its latest checkpoint gets a new one (`AuditService.checkpoint`, which verifies the chain
 * before signing). A failure is logged and retried at the next tick; it never stops the server.
 */
import { type AuditStore, type GovernanceError, latestCheckpointOf, type Result } from '@agentgov/core';
import type { LogLine } from './request-log';

export interface CheckpointSchedule {
  /** Runs one round now (also what the timer runs); resolves to the tenants checkpointed. */
  tick(): Promise<string[]>;
  stop(): Promise<void>;
}

export function scheduleCheckpoints(
  store: AuditStore,
  log: { checkpoint(tenantId: string): Promise<Result<unknown, GovernanceError>> },
  intervalSeconds: number,
  say: LogLine,
): CheckpointSchedule {
  let running: Promise<string[]> | undefined;
  const round = async (): Promise<string[]> => {
    const done: string[] = [];
    for (const tenantId of await store.tenants()) {
      const head = await store.head(tenantId);
      if (!head) continue;
      const latest = (await latestCheckpointOf(store, tenantId))?.treeSize ?? 0;
      if (head.seq <= latest) continue;
      const result = await log.checkpoint(tenantId);
      if (result.isOk()) done.push(tenantId);
      else say(`audit checkpoint of tenant ${tenantId} failed: ${result.error.message}`);
    }
    return done;
  };
  const tick = () => {
    running ??= round()
      .catch((error: unknown) => {
        say(`audit checkpoints failed: ${error instanceof Error ? error.message : String(error)}`);
        return [];
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  const timer = intervalSeconds > 0 ? setInterval(() => void tick(), intervalSeconds * 1000) : undefined;
  timer?.unref();
  return {
    tick,
    async stop() {
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
