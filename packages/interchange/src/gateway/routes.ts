/**
 * `interchangeRoutes(...)`: the interchange protocol's gateway plugin — what humans need over HTTP.
 * Initiation stays with the assistants (spec: "Initiation is by asking the user's assistant, not
 * by a dedicated endpoint"); these routes list and read stored exchanges (the humans involved;
 * the tenant's enterprise_admin; an org_admin those of their org's users, as the audit routes
 * scope their reads) and approve or reject the request an exchange waits on (only
 * the human whose assistant was asked). Another tenant's exchange is 404. The plugin reports
 * `autoResponsesSent` to /metrics from the exchange store (automatic replies in the transcripts).
 */
import {
  type AuditSink,
  type AuthenticatedContext,
  type Clock,
  defineRoute,
  EXCHANGE_OUTCOMES,
  ExchangeSchema,
  type ExchangeStore,
  errorSpec as err,
  type GatewayPlugin,
  guardPort,
  IdParams,
  type OrgDirectory,
  systemClock,
} from '@agentgov/core';
import { z } from 'zod';
import { listExchanges, readExchange, recordHumanDecision, type Viewer } from '../desk';

export interface InterchangeRoutesOptions {
  store: ExchangeStore;
  /** Where the humans' decisions are audited (`agent_exchange` entries). */
  audit: AuditSink;
  /**
   * The org tree: an org_admin reads the exchanges of the users of their org. Without it an
   * org_admin reads only the exchanges they take part in.
   */
  directory?: OrgDirectory;
  clock?: Clock;
}

/** The interchange plugin, with the store it serves (for in-process use beside HTTP). */
export interface InterchangePlugin extends GatewayPlugin {
  readonly store: ExchangeStore;
}

const ExchangeOut = ExchangeSchema.meta({ id: 'Exchange' });
const Page = z.object({ exchanges: z.array(ExchangeOut), total: z.number().int() });

export const ExchangeListQuery = z.object({
  outcome: z.enum(EXCHANGE_OUTCOMES).optional(),
  /** The exchanges of one participant, within what the caller may see. */
  userId: z.string().min(1).max(255).optional(),
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(1000).default(100),
});

export const DecisionBody = z.strictObject({
  /** The pending request this decision is for (recommended: binds the decision to it). */
  approvalId: z.string().min(1).max(255).optional(),
  note: z.string().max(4096).optional(),
});

const viewer = (rc: AuthenticatedContext): Viewer => ({
  tenantId: rc.tenantId,
  userId: rc.principal.userId,
  roles: rc.principal.roles,
  orgUnit: rc.principal.orgUnit,
});

export function interchangeRoutes(options: InterchangeRoutesOptions): InterchangePlugin {
  const store = guardPort(options.store, 'exchange store');
  const clock = options.clock ?? systemClock;
  const directory = options.directory && guardPort(options.directory, 'org directory');
  const decide = (decision: 'approved' | 'rejected') =>
    defineRoute({
      method: 'POST',
      path: `/exchanges/{id}/${decision === 'approved' ? 'approve' : 'reject'}`,
      operationId: decision === 'approved' ? 'approveExchange' : 'rejectExchange',
      summary:
        decision === 'approved'
          ? 'Approve the request the exchange waits on (commitment, meeting, or an answer); recorded with who and when'
          : 'Reject the request the exchange waits on; the exchange is denied',
      auth: 'required',
      rateLimit: 'exchange_decisions',
      params: IdParams,
      body: DecisionBody,
      responses: {
        200: { description: 'The exchange with the decision recorded', schema: ExchangeOut },
        400: err('invalid_type'),
        403: err('forbidden (not the human asked) or policy_denied (the decision window passed)'),
        404: err('NOT_FOUND (no such exchange for the caller, or nothing awaits a decision)'),
      },
      async handler({ params, body }, rc) {
        await readExchange(store, viewer(rc), params.id, directory);
        const x = await recordHumanDecision(
          { store, audit: options.audit, clock },
          {
            tenantId: rc.tenantId,
            exchangeId: params.id,
            by: rc.principal.userId,
            decision,
            requestId: rc.requestId,
            ...(body.approvalId ? { approvalId: body.approvalId } : {}),
            ...(body.note ? { note: body.note } : {}),
          },
        );
        return { status: 200, body: x };
      },
    });
  return {
    name: 'interchange',
    store,
    rateLimits: {
      exchange_reads: { points: 120, durationSeconds: 60 },
      exchange_decisions: { points: 60, durationSeconds: 60 },
    },
    async metrics(tenantId) {
      return {
        autoResponsesSent: await store.countTranscriptEntries(tenantId, { kind: 'reply', automatic: true }),
      };
    },
    routes: [
      defineRoute({
        method: 'GET',
        path: '/exchanges',
        operationId: 'listExchanges',
        summary:
          'Exchanges the caller takes part in (enterprise_admin: the tenant’s; org_admin: their org’s), newest first',
        auth: 'required',
        rateLimit: 'exchange_reads',
        query: ExchangeListQuery,
        responses: {
          200: { description: 'A page of exchanges and the total', schema: Page },
          400: err('invalid_type'),
        },
        async handler({ query }, rc) {
          const page = await listExchanges(
            store,
            viewer(rc),
            {
              ...(query.outcome ? { outcome: query.outcome } : {}),
              ...(query.userId ? { userId: query.userId } : {}),
            },
            { offset: (query.page - 1) * query.pageSize, limit: query.pageSize },
            directory,
          );
          return { status: 200, body: page };
        },
      }),
      defineRoute({
        method: 'GET',
        path: '/exchanges/{id}',
        operationId: 'getExchange',
        summary:
          'One exchange with its full transcript (the humans involved, enterprise_admin, or the org_admin of either human’s org)',
        auth: 'required',
        rateLimit: 'exchange_reads',
        params: IdParams,
        responses: { 200: { description: 'The exchange', schema: ExchangeOut }, 404: err('NOT_FOUND') },
        async handler({ params }, rc) {
          return { status: 200, body: await readExchange(store, viewer(rc), params.id, directory) };
        },
      }),
      decide('approved'),
      decide('rejected'),
    ],
  };
}
