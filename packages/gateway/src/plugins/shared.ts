import type { Principal as PolicyPrincipal } from '@agentgov/policy';
import { z } from 'zod';
import type { Principal } from '../auth/principal';
import type { AnyRoute } from '../routes';

export interface GovernancePlugin {
  name: string;
  routes: AnyRoute[];
}

/** The gateway's principal in the shape @agentgov/policy expects. */
export function policyPrincipal(p: Principal): PolicyPrincipal {
  return {
    userId: p.userId,
    tenantId: p.tenantId,
    roles: p.roles,
    orgUnit: p.orgUnit ?? undefined,
    team: p.team ?? undefined,
  };
}

export { unwrapOrThrow as unwrap } from '@agentgov/core';

export const IdParams = z.object({ id: z.string().min(1).max(255) });

export const ErrorBodySchema = z
  .object({
    error: z.string(),
    message: z.string(),
    detail: z.unknown().optional(),
  })
  .meta({ id: 'ErrorBody' });

export function principalOf(p: Principal | undefined): Principal {
  if (!p) throw new Error('route requires a principal');
  return p;
}
