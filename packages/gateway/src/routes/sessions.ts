/**
 * Kernel routes of sessions (issue 15; extensions, in the style of the spec's routes): a user lists
 * and ends their own sessions; an enterprise_admin lists and ends any user's sessions within their
 * own tenant. A session is shown by an opaque id derived from its stored hash — never the session
 * secret or the hash itself. A session of another user or another tenant is `NOT_FOUND`.
 */
import { type AnyRoute, defineRoute, errorSpec as err, errorOf, json } from '@agentgov/core';
import { z } from 'zod';
import { sessionIdHashOf } from '../auth/sessions';
import { readCookie } from '../http';
import type { OidcServices } from './auth';

const SessionOut = z
  .object({
    id: z.string().describe('Opaque id of the session (not its secret)'),
    createdAt: z.string(),
    lastSeenAt: z.string().describe('Last recorded use (recorded at most every tenth of the idle window)'),
    expiresAt: z.string().describe('End of the idle window; moves forward with use'),
    absoluteExpiresAt: z.string().describe('The session ends here however often it is used'),
    userAgent: z.string().nullable(),
    ip: z.string().nullable(),
    current: z.boolean().describe('The session of this request'),
  })
  .meta({ id: 'Session' });
const SessionList = z.object({ sessions: z.array(SessionOut), total: z.number().int() });

const SessionIdParams = z.object({ id: z.string().min(1).max(64) });
const UserParams = z.object({ userId: z.string().min(1).max(255) });
const UserSessionParams = UserParams.extend({ id: z.string().min(1).max(64) });

const Revoked = z.object({ id: z.string(), revoked: z.literal(true) });
const RevokedAll = z.object({ userId: z.string(), revoked: z.number().int() });

export function sessionRoutes(ctx: OidcServices): AnyRoute[] {
  const currentHash = (request: Request) =>
    sessionIdHashOf(readCookie(request.headers.get('cookie'), ctx.sessions.cookieName));
  const list = async (tenantId: string, userId: string, request: Request) => {
    const sessions = await ctx.sessions.list(tenantId, userId, currentHash(request));
    return { status: 200, body: { sessions, total: sessions.length } };
  };
  /** Cached bearer verifications of the user are dropped with their sessions. */
  const revoked = (tenantId: string, userId: string) => ctx.oidc.forgetUser(tenantId, userId);

  return [
    defineRoute({
      method: 'GET',
      path: '/auth/sessions',
      operationId: 'listOwnSessions',
      summary: "Extension: the caller's live sessions (newest first)",
      auth: 'required',
      responses: { 200: { description: 'Sessions', schema: SessionList } },
      handler: ({ request }, { tenantId, principal }) => list(tenantId, principal.userId, request),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/auth/sessions/{id}',
      operationId: 'revokeOwnSession',
      summary: "Extension: end one of the caller's sessions (its cookie stops working at once)",
      auth: 'required',
      params: SessionIdParams,
      responses: {
        200: { description: 'Ended; ending the current session also clears its cookie', schema: Revoked },
        404: err('NOT_FOUND (no such session of the caller)'),
      },
      async handler({ request, params }, { tenantId, principal }) {
        const { userId } = principal;
        const current = currentHash(request);
        const mine = await ctx.sessions.list(tenantId, userId, current);
        const target = mine.find((s) => s.id === params.id);
        if (!target || !(await ctx.sessions.revoke(tenantId, userId, params.id))) {
          throw errorOf('NOT_FOUND', `Session ${params.id} not found`);
        }
        revoked(tenantId, userId);
        const headers = new Headers();
        if (target.current) headers.append('set-cookie', ctx.sessions.cookie('', 0));
        return json(200, { id: params.id, revoked: true }, headers);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/users/{userId}/sessions',
      operationId: 'listUserSessions',
      summary: "Extension: a user's live sessions in the caller's tenant (enterprise_admin)",
      auth: 'required',
      roles: ['enterprise_admin'],
      rateLimit: 'admin',
      params: UserParams,
      responses: { 200: { description: 'Sessions', schema: SessionList } },
      handler: ({ request, params }, { tenantId }) => list(tenantId, params.userId, request),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/users/{userId}/sessions',
      operationId: 'revokeUserSessions',
      summary: "Extension: end every session of a user in the caller's tenant (enterprise_admin)",
      auth: 'required',
      roles: ['enterprise_admin'],
      rateLimit: 'admin',
      params: UserParams,
      responses: { 200: { description: 'How many sessions were ended', schema: RevokedAll } },
      async handler({ params }, { tenantId }) {
        const n = await ctx.sessions.revokeAll(tenantId, params.userId);
        revoked(tenantId, params.userId);
        return { status: 200, body: { userId: params.userId, revoked: n } };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/users/{userId}/sessions/{id}',
      operationId: 'revokeUserSession',
      summary: "Extension: end one session of a user in the caller's tenant (enterprise_admin)",
      auth: 'required',
      roles: ['enterprise_admin'],
      rateLimit: 'admin',
      params: UserSessionParams,
      responses: {
        200: { description: 'Ended', schema: Revoked },
        404: err('NOT_FOUND (no such session of that user in this tenant)'),
      },
      async handler({ params }, { tenantId }) {
        if (!(await ctx.sessions.revoke(tenantId, params.userId, params.id))) {
          throw errorOf('NOT_FOUND', `Session ${params.id} not found`);
        }
        revoked(tenantId, params.userId);
        return { status: 200, body: { id: params.id, revoked: true } };
      },
    }),
  ];
}
