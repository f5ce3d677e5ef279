/** The webhook routes: `POST /webhooks/codehost` and `POST /webhooks/tracker` (auth: signature). */
import { type AnyRoute, defineRoute, errorSpec as err, errorOf, type WebhookSource } from '@agentgov/core';
import { z } from 'zod';
import type { WebhookService, WebhookVerification } from '../webhooks';

const Payload = z.record(z.string(), z.unknown()).meta({
  id: 'WebhookPayload',
  description: 'The sender’s JSON payload, verified by signature over its exact bytes',
});
const WebhookQuery = z.object({
  tenant: z
    .string()
    .min(1)
    .max(255)
    .optional()
    .meta({ description: 'The receiving tenant (default: the plugin’s defaultTenant)' }),
});
const WebhookAnswerSchema = z
  .object({
    status: z.enum(['processed', 'duplicate', 'ignored', 'pong']),
    deliveryId: z.string(),
    event: z.string(),
    action: z.string().optional(),
    reason: z.string().optional(),
    tickets: z.array(z.string()).optional(),
    activities: z.number().int().optional(),
    writes: z
      .array(
        z.object({
          id: z.string(),
          tool: z.enum(['tracker_update', 'tracker_transition']),
          ticketId: z.string(),
          state: z.string(),
        }),
      )
      .optional(),
  })
  .meta({ id: 'WebhookAnswer' });

export interface WebhookRouteOptions {
  webhooks: WebhookService;
  defaultTenant?: string | undefined;
  /** Body limit of the webhook routes in bytes; only effective below the kernel's limit (1 MiB). */
  bodyLimit: number;
}

export function webhookRoutes(o: WebhookRouteOptions): AnyRoute[] {
  /** What `beforeParse` verified, by the very bytes the handler then gets. */
  const verified = new WeakMap<Uint8Array, WebhookVerification>();
  const tenantOf = (query: { tenant?: string | undefined }): string => {
    const tenantId = query.tenant ?? o.defaultTenant;
    if (!tenantId)
      throw errorOf('missing_type', 'The tenant query parameter is required', [
        { path: 'tenant', message: 'required' },
      ]);
    return tenantId;
  };
  const route = (source: WebhookSource, summary: string) =>
    defineRoute({
      method: 'POST',
      path: `/webhooks/${source}`,
      operationId: source === 'codehost' ? 'codehostWebhook' : 'trackerWebhook',
      summary,
      auth: 'none',
      rateLimit: 'webhooks',
      query: WebhookQuery,
      body: Payload,
      // Before the body is parsed: its size, the tenant, the signature over the bytes, the content
      // type (unsigned or mislabelled input is never parsed, and gets 401 / 415, not a parse error).
      async beforeParse(bytes, { request, query }) {
        if (bytes.byteLength > o.bodyLimit)
          throw errorOf('payload_too_large', `The webhook body exceeds ${o.bodyLimit} bytes`);
        const verification = await o.webhooks.verify(source, {
          tenantId: tenantOf(query),
          headers: request.headers,
          rawBody: bytes,
        });
        verified.set(bytes, verification);
      },
      responses: {
        200: {
          description: 'Processed, duplicate (nothing changed), ignored (with the reason) or pong',
          schema: WebhookAnswerSchema,
        },
        400: err('missing_type / invalid_type: not JSON, no event, or a payload the event cannot use'),
        401: err('invalid_webhook_secret: missing or wrong signature'),
        403: err('policy_denied: policy denies a tracker write of the merge (audited; nothing recorded)'),
        413: err('payload_too_large'),
        415: err('unsupported_media_type: not application/json'),
        429: err('rate_limit_exceeded'),
        503: err('POLICY_ENGINE_UNREACHABLE or service_unavailable'),
      },
      async handler({ query, body, rawBody, request }, rc) {
        const bytes = rawBody ?? new Uint8Array(0);
        const verification = verified.get(bytes);
        verified.delete(bytes);
        const answer = await o.webhooks.receive(
          source,
          {
            tenantId: tenantOf(query),
            headers: request.headers,
            rawBody: bytes,
            payload: body,
            requestId: rc.requestId,
          },
          verification,
        );
        return { status: 200, body: answer };
      },
    });
  return [
    route('codehost', 'Code-host webhook (GitHub, Gitea, Forgejo): pull requests, reviews, pushes, ping'),
    route('tracker', 'Tracker webhook (Jira-style): issue updated'),
  ];
}
