/**
 * Asking every plugin for its health components and counters, each bounded in time: a plugin that
 * throws or hangs reports "unhealthy" / nothing, never fails the whole answer.
 */
import type { GatewayPlugin } from '@agentgov/core';

/** Resolves `work()`, or `fallback` when it rejects or takes longer than `ms`. */
export async function within<T>(work: () => Promise<T>, fallback: T, ms = 2000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work().catch(() => fallback),
      new Promise<T>((resolve) => {
        timer = setTimeout(() => resolve(fallback), ms);
        timer.unref?.();
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Health components of every plugin (name → healthy); a failing plugin's components are unhealthy. */
export async function pluginHealth(
  plugins: readonly GatewayPlugin[],
  signal: AbortSignal,
): Promise<Record<string, boolean>> {
  const reports = await Promise.all(
    plugins.map((p) => (p.health ? within(() => p.health!(signal), { [p.name]: false }) : {})),
  );
  return Object.assign({}, ...reports);
}

/** Counters of every plugin for one tenant, merged (later plugins add to a name an earlier one used). */
export async function pluginMetrics(
  plugins: readonly GatewayPlugin[],
  tenantId: string,
  signal: AbortSignal,
): Promise<Record<string, number>> {
  const reports = await Promise.all(
    plugins.map(
      (p): Promise<Record<string, number>> => (p.metrics ? p.metrics(tenantId, signal) : Promise.resolve({})),
    ),
  );
  const out: Record<string, number> = {};
  for (const r of reports) for (const [k, v] of Object.entries(r)) out[k] = (out[k] ?? 0) + v;
  return out;
}
