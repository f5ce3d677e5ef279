/**
 * A loopback node:http server that speaks OPA's REST Data API — `POST /v1/data/<path>` with
 * `{input}` → `{result}`, `GET /health` — and evaluates with a DecisionEngine (the built-in one):
 * a stand-in for an OPA sidecar running the built-in rules as Rego (no OPA binary is installed here).
 * Paths are `DEFAULT_OPA_PATHS`; an unknown path answers `{}` like OPA's undefined document.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type DecisionEngine, type DecisionRequest, parseDecisionRequest } from '@agentgov/core';
import { DEFAULT_OPA_PATHS } from '../src/index';

export interface OpaLoopback {
  url: string;
  close(): Promise<void>;
}

/** Rebuilds the DecisionRequest the OpaDecisionEngine encoded as `{...input, tenant_id, user_id?}` (no user_id: the enterprise level). */
function requestOf(domain: DecisionRequest['domain'], input: unknown): DecisionRequest | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const { tenant_id, user_id, ...rest } = input as Record<string, unknown>;
  if (typeof tenant_id !== 'string') return undefined;
  // The OPA client sends a request without `user_id` only when it asked explicitly for the
  // enterprise level (`scope: 'enterprise'`): a request with neither never leaves it.
  const userId = typeof user_id === 'string' ? { userId: user_id } : { scope: 'enterprise' as const };
  const parsed = parseDecisionRequest({ domain, tenantId: tenant_id, ...userId, input: rest });
  return parsed.isOk() ? parsed.value : undefined;
}

export async function startOpaLoopback(engine: DecisionEngine): Promise<OpaLoopback> {
  const domains = new Map(
    Object.entries(DEFAULT_OPA_PATHS).map(([domain, path]) => [
      `/v1/data/${path}`,
      domain as DecisionRequest['domain'],
    ]),
  );
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const send = (status: number, value: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (req.method === 'GET' && req.url === '/health') return send(200, {});
      const domain = domains.get(req.url ?? '');
      if (req.method !== 'POST' || !domain) return send(200, {});
      let body: { input?: unknown };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return send(400, { code: 'invalid_parameter', message: 'malformed JSON' });
      }
      const request = requestOf(domain, body.input);
      if (!request) return send(200, {});
      const decision = await engine.decide(request);
      if (decision.isErr()) return send(500, { code: 'internal_error', message: decision.error.message });
      const { allow, deny, reason, constraints, policyIds } = decision.value;
      return send(200, { result: { allow, deny, reason, constraints, policy_ids: policyIds } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
