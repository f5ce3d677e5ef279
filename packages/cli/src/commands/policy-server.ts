/** What `policy diff` and `policy apply` share: the directory validated, the server read, the plan. */
import type { Policy } from '@agentgov/core';
import { loadPolicyBundle, validateBundle } from '@agentgov/policy';
import { type CliIo, EXIT, UsageError } from '../io';
import { computePlan, type PlanItem } from '../policy-plan';
import { call, type Server, ServerError, serverFrom, tokenTenant } from '../server-client';
import { describe } from './policy-common';

export const SERVER_OPTIONS = {
  server: { type: 'string' },
  token: { type: 'string' },
  json: { type: 'boolean' },
} as const;

/**
 * Validates DIR (as `policy validate`: nothing is sent when it is not valid), checks the token's
 * tenant is the directory's, reads the server's active policies and computes the plan. Returns an
 * exit code instead when DIR is not valid.
 */
export async function planAgainstServer(
  dir: string,
  values: { server?: string | undefined; token?: string | undefined },
  io: CliIo,
): Promise<{ server: Server; tenantId: string; items: PlanItem[] } | { exit: number }> {
  const server = serverFrom(values, io.env);
  const bundle = await loadPolicyBundle(dir);
  if (bundle.isErr()) throw new UsageError(describe(bundle.error));
  const report = await validateBundle(bundle.value);
  if (!report.valid) {
    for (const e of report.errors) io.stderr(`${e.file}: ${e.message}\n`);
    for (const v of report.violations) io.stderr(`${v.file}: ${v.reason}\n`);
    io.stderr(`${dir} is not valid (agentgov policy validate ${dir}); nothing was sent\n`);
    return { exit: report.errors.some((e) => e.kind === 'invalid') ? EXIT.usage : EXIT.findings };
  }
  const tenantId = await tokenTenant(server);
  if (tenantId !== bundle.value.tenantId) {
    throw new UsageError(
      `the token is for tenant '${tenantId}' but ${dir}/directory.yaml is tenant '${bundle.value.tenantId}'`,
    );
  }
  let policies: Policy[];
  try {
    policies = (await call<Policy[]>(server, 'GET', '/policies?status=active')).body;
  } catch (error) {
    if (error instanceof ServerError)
      throw new UsageError(`cannot read the server's policies: ${error.message}`);
    throw error;
  }
  return { server, tenantId, items: computePlan(bundle.value, policies) };
}
