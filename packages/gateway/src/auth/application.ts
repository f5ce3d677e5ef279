/**
 * The alternative to OIDC: an application that signs its users in itself (and mounts the routes
 * behind its own sign-in) gives the kernel `authenticate(request)`, which answers the `Principal`
 * of a request or `undefined` for none. The kernel then runs no OIDC client and no sessions of its
 * own; everything after authentication (tenant, roles, guards, limits, audit) is unchanged.
 */
import { errorOf, guardPort, type Principal, RoleSchema } from '@agentgov/core';
import { z } from 'zod';
import type { Authenticator } from './authenticate';

/** The application's authentication: the caller's principal, or `undefined` when there is none. */
export type AuthenticateRequest = (request: Request) => Promise<Principal | undefined>;

const PrincipalSchema = z.object({
  userId: z.string().min(1),
  email: z.string(),
  roles: z.array(RoleSchema),
  tenantId: z.string().min(1),
  orgUnit: z.string().min(1).nullable(),
  team: z.string().min(1).nullable(),
  via: z.enum(['bearer', 'session']),
});

/**
 * The kernel's authenticator over the application's function. No principal is the spec's 401
 * (`authentication_required`; `no_session` on the session routes); a `GovernanceError` the
 * function throws is answered as is; any other failure is a 503 (the sign-in it relies on is
 * away), as for every port. A principal that is not one (an unknown role, no tenant) is the
 * application's bug: a 500, reported through `onError`.
 */
export function applicationAuthenticator(authenticate: AuthenticateRequest): Authenticator {
  const port = guardPort({ authenticate }, 'authenticate function');
  return async (from, mode) => {
    const principal = await port.authenticate(from instanceof Request ? from : from.request);
    if (principal === undefined) {
      throw mode === 'session' ? errorOf('no_session') : errorOf('authentication_required');
    }
    const checked = PrincipalSchema.safeParse(principal);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      throw new TypeError(
        `authenticate returned an invalid Principal: ${issue?.path.join('.') || 'value'}: ${issue?.message ?? 'invalid'}`,
      );
    }
    return checked.data;
  };
}
