/**
 * What work tracking can use in a tenant's `tracker` and `codehost` connector `config`, checked when
 * the connector is written: the plugin gives these to the gateway kernel as its `connectorConfigs`,
 * so `POST`/`PATCH /connectors` refuse (400 naming the field) a config work tracking would later
 * skip — a tracker whose webhooks and writes silently stop, a code host whose every delivery is
 * refused. The check is the schemas the package reads the config with, not a copy of them: a
 * config passes when every reader accepts it (the webhooks' `TrackerIntegrationSchema` /
 * `CodehostIntegrationSchema`, the scheduled pulls' `TrackerPullConfigSchema` /
 * `CodehostPullConfigSchema`), and its URLs are http(s) (`ftp://x` is a URL no client here speaks).
 * Keys none of them knows are left alone.
 */
import { z } from 'zod';
import { CodehostIntegrationSchema, TrackerIntegrationSchema } from './integrations';
import { CodehostPullConfigSchema, TrackerPullConfigSchema } from './sync/connector-sync';

const HttpUrl = z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).optional();

/** A config every one of `readers` accepts; each field's first problem is reported once. */
function readableBy(...readers: z.ZodType[]) {
  return z.record(z.string(), z.unknown()).superRefine((config, ctx) => {
    const reported = new Set<string>();
    for (const reader of readers) {
      const r = reader.safeParse(config);
      if (r.success) continue;
      for (const issue of r.error.issues) {
        const at = issue.path.map(String).join('.');
        if (reported.has(at)) continue;
        reported.add(at);
        ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
      }
    }
  });
}

export const TrackerConnectorConfigSchema = readableBy(
  TrackerIntegrationSchema,
  TrackerPullConfigSchema,
  z.looseObject({ baseUrl: HttpUrl }),
);

export const CodehostConnectorConfigSchema = readableBy(
  // A code host used only for scheduled pulls has no webhook secret (its webhooks are then
  // refused, 401, as a tenant's without a secret are); everything else as the webhooks read it.
  CodehostIntegrationSchema.partial({ webhookSecretRef: true }),
  CodehostPullConfigSchema,
  z.looseObject({ apiBaseUrl: HttpUrl }),
);

/** The plugin's `connectorConfigs`: by connector type, the config work tracking can use. */
export const WORK_TRACKING_CONNECTOR_CONFIGS = {
  tracker: TrackerConnectorConfigSchema,
  codehost: CodehostConnectorConfigSchema,
} as const;
