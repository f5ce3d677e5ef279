/**
 * The connectors of `/status`: the caller's tenant's configured connectors (active, and those in
 * `error` — a disabled connector is not configured any more) by name (`config.name`
 * when it is a string, else the type, or `<type>-<first 8 of the id>` when the type repeats), each `{status}` as the spec has it,
 * plus — once a probe of it has failed — `lastFailure: {reason, at}`: why, in words, and when it
 * was seen (kept by this process since it started).
 */
import type { Connector } from '@agentgov/core';
import type { KernelServices } from '../services';

export interface ConnectorHealth {
  status: 'healthy' | 'unhealthy';
  lastFailure?: { reason: string; at: string };
}

const PROBE_TIMEOUT_MS = 2000;

function connectorName(c: Connector, typeIsUnique: boolean): string {
  const named = c.config.name;
  if (typeof named === 'string' && named.trim() !== '') return named.slice(0, 100);
  return typeIsUnique ? c.type : `${c.type}-${c.id.slice(0, 8)}`;
}

/** Why a connector is unhealthy, or undefined when the probe passed. */
async function probe(ctx: KernelServices, c: Connector): Promise<string | undefined> {
  if (c.status === 'error') return c.errorDetails ?? 'the connector reported an error';
  let timer: NodeJS.Timeout | undefined;
  try {
    const ok = await Promise.race([
      ctx.probeConnector(c),
      new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), PROBE_TIMEOUT_MS);
        timer.unref?.();
      }),
    ]);
    if (ok === 'timeout') return `the health probe gave no answer within ${PROBE_TIMEOUT_MS / 1000} s`;
    if (ok) return undefined;
  } catch (error) {
    return `the health probe failed: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    clearTimeout(timer);
  }
  const secret = await ctx.tenantSecrets
    .get(c.credentialsRef, { tenantId: c.tenantId })
    .catch(() => undefined);
  return secret === undefined
    ? // One answer for "not in the store" and "another tenant's": no tenant learns which names others use.
      `its credentials secret reference '${c.credentialsRef}' does not resolve for this tenant (not in the secret store, or another tenant's)`
    : 'the health probe answered unhealthy';
}

/** A `/status` connector reporter; it remembers each connector's last failure. */
export function connectorReporter(ctx: KernelServices) {
  const failures = new Map<string, { reason: string; at: string }>();
  return async (tenantId: string | undefined): Promise<Record<string, ConnectorHealth>> => {
    const out: Record<string, ConnectorHealth> = {};
    if (tenantId === undefined) return out;
    const connectors = (await ctx.stores.connectors.list(tenantId).catch(() => [])).filter(
      (c) => c.status !== 'disabled',
    );
    const perType = new Map<string, number>();
    for (const c of connectors) perType.set(c.type, (perType.get(c.type) ?? 0) + 1);
    await Promise.all(
      connectors.map(async (c) => {
        const reason = await probe(ctx, c);
        if (reason !== undefined) failures.set(c.id, { reason, at: ctx.clock.now().toISOString() });
        const last = failures.get(c.id);
        let name = connectorName(c, perType.get(c.type) === 1);
        if (out[name]) name = `${name}-${c.id.slice(0, 8)}`;
        out[name] = {
          status: reason === undefined ? 'healthy' : 'unhealthy',
          ...(last ? { lastFailure: last } : {}),
        };
      }),
    );
    return out;
  };
}
