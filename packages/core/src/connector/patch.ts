/**
 * PATCH of a connector (an extension beyond the spec): change its `config` (a JSON merge patch,
 * RFC 7396), its credentials reference, its status, or rotate its webhook secret without
 * disable-and-recreate. A rotation makes the new reference current and keeps the previous one
 * valid for a window (`previousWebhookSecretRef` + `webhookRotationEndsAt` in config), so
 * senders still signing with the old secret are accepted until they switch.
 */
import { z } from 'zod';
import { validationErrorFromZod } from '../errors';
import { type Connector, ConnectorConfigSchema, SecretRefField } from './schema';

/** Default rotation window: the previous webhook secret stays valid for one day. */
export const DEFAULT_WEBHOOK_ROTATION_WINDOW_SECONDS = 86_400;
const MAX_ROTATION_WINDOW_SECONDS = 30 * 86_400;

export const ConnectorPatchSchema = z
  .strictObject({
    /** JSON merge patch of `config`: a key set to null is removed, objects merge, anything else replaces. */
    config: z.record(z.string(), z.unknown()).optional(),
    credentials_secret_ref: SecretRefField.optional(),
    /** Rotate the webhook secret: the new secret's reference. */
    webhook_secret_ref: SecretRefField.optional(),
    /** How long the previous webhook secret stays valid (seconds, default 86400, 0 = not at all). */
    rotation_window_seconds: z.number().int().min(0).max(MAX_ROTATION_WINDOW_SECONDS).optional(),
    status: z.enum(['active', 'disabled']).optional(),
  })
  .superRefine((p, issue) => {
    if (
      p.config === undefined &&
      p.credentials_secret_ref === undefined &&
      p.webhook_secret_ref === undefined &&
      p.status === undefined
    )
      issue.addIssue({
        code: 'custom',
        path: [],
        message: 'nothing to change: give config, credentials_secret_ref, webhook_secret_ref or status',
      });
    if (p.rotation_window_seconds !== undefined && p.webhook_secret_ref === undefined)
      issue.addIssue({
        code: 'custom',
        path: ['rotation_window_seconds'],
        message: 'applies only to a rotation (give webhook_secret_ref)',
      });
    if (p.webhook_secret_ref !== undefined && p.config) {
      for (const key of ['webhookSecretRef', 'previousWebhookSecretRef', 'webhookRotationEndsAt'])
        if (key in p.config)
          issue.addIssue({
            code: 'custom',
            path: ['config', key],
            message: 'a rotation (webhook_secret_ref) sets this itself; do not set it in the same request',
          });
    }
  });
export type ConnectorPatch = z.infer<typeof ConnectorPatchSchema>;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** RFC 7396 JSON merge patch; keys such as `__proto__` are plain data keys, never prototypes. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Record<string, unknown> = {};
  if (isObject(target)) for (const [k, v] of Object.entries(target)) define(out, k, v);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else define(out, k, mergePatch(Object.hasOwn(out, k) ? out[k] : undefined, v));
  }
  return out;
}
function define(o: Record<string, unknown>, k: string, value: unknown): void {
  Object.defineProperty(o, k, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * The connector after `patch` at `now` (status is left to the caller, which checks the
 * one-active-per-type rule). A merged config that holds a plaintext secret is a ValidationError.
 */
export function applyConnectorPatch(c: Connector, patch: ConnectorPatch, now: Date): Connector {
  let config = patch.config ? (mergePatch(c.config, patch.config) as Record<string, unknown>) : c.config;
  if (patch.webhook_secret_ref !== undefined) {
    const current = typeof config.webhookSecretRef === 'string' ? config.webhookSecretRef : undefined;
    const windowS = patch.rotation_window_seconds ?? DEFAULT_WEBHOOK_ROTATION_WINDOW_SECONDS;
    const keepPrevious = current !== undefined && current !== patch.webhook_secret_ref && windowS > 0;
    const {
      previousWebhookSecretRef: _ref,
      webhookRotationEndsAt: _until,
      ...rest
    } = config as Record<string, unknown>;
    config = {
      ...rest,
      webhookSecretRef: patch.webhook_secret_ref,
      ...(keepPrevious
        ? {
            previousWebhookSecretRef: current,
            webhookRotationEndsAt: new Date(now.getTime() + windowS * 1000).toISOString(),
          }
        : {}),
    };
  }
  const checked = ConnectorConfigSchema.safeParse(config);
  if (!checked.success) throw validationErrorFromZod(checked.error, config, 'config');
  return {
    ...c,
    config,
    ...(patch.credentials_secret_ref !== undefined ? { credentialsRef: patch.credentials_secret_ref } : {}),
  };
}
