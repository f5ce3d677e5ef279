/**
 * Where the plugin's per-tenant configuration comes from: the tenant's `codehost` and `tracker`
 * connectors (their `config`), or a static table. Secrets are never in the configuration, only
 * references into a SecretStore (`webhookSecretRef`, the connector's `credentialsRef`).
 */
import type { ConnectorStore, SecretContext, SecretStore, WebhookSource } from '@agentgov/core';
import { z } from 'zod';
import { isProjectKey } from './tickets';

const Users = z.record(z.string(), z.string().min(1).max(255)).default({});

export const CodehostIntegrationSchema = z.object({
  /** Secret store reference of the current webhook secret. */
  webhookSecretRef: z.string().min(1),
  /** During a rotation: the reference of the previous secret, still accepted until removed… */
  previousWebhookSecretRef: z.string().min(1).optional(),
  /** …or until this instant (set by `PATCH /connectors/{id}` with `webhook_secret_ref`). */
  webhookRotationEndsAt: z.iso.datetime({ offset: true }).optional(),
  /** Code-host login → agentgov user id (unmapped logins are used as they are). */
  users: Users,
});
export type CodehostIntegration = z.infer<typeof CodehostIntegrationSchema>;

export const TrackerIntegrationSchema = z.object({
  /** The tracker's name, also the word of PR description lines `<name>: <URL>`. */
  name: z.string().min(1).max(64).default('Jira'),
  /**
   * Project keys whose `{KEY}-{NUMBER}` references count as tickets; left out, any key of 2 to
   * 32 characters counts (see `tickets.ts`).
   */
  projectKeys: z
    .array(z.string().refine(isProjectKey, 'must be an upper-case project key'))
    .min(1)
    .optional(),
  /** Transition applied to each linked ticket when a pull request is merged; none when absent. */
  defaultMergeTransition: z.string().min(1).max(255).optional(),
  /** Base URL of the tracker's REST API (Jira-compatible); needed for writes. */
  baseUrl: z.url().optional(),
  /**
   * With a username, the API token (the connector's `credentialsRef`) is sent as HTTP Basic
   * `username:token` (Jira Cloud: the account's e-mail); without, as a bearer token (Jira Data
   * Center personal access tokens).
   */
  username: z.string().min(1).max(255).optional(),
  /** Secret reference of the tracker's own webhooks (`POST /webhooks/tracker`). */
  webhookSecretRef: z.string().min(1).optional(),
  previousWebhookSecretRef: z.string().min(1).optional(),
  webhookRotationEndsAt: z.iso.datetime({ offset: true }).optional(),
  /** Tracker account (accountId, name or e-mail) → agentgov user id. */
  users: Users,
});
export type TrackerIntegration = z.infer<typeof TrackerIntegrationSchema>;

export interface TenantIntegrations {
  tenantId: string;
  codehost?: CodehostIntegration | undefined;
  tracker?: TrackerIntegration | undefined;
  /** Secret reference of the tracker API credentials (the tracker connector's `credentialsRef`). */
  trackerCredentialsRef?: string | undefined;
  /**
   * A connector of the type whose config could not be read (and none of that type that could):
   * stored before configs were checked on write, or changed in the store behind the API. Webhooks
   * and tracker writes then say what is wrong instead of failing for a misleading reason.
   */
  unreadable?: Partial<Record<WebhookSource, UnreadableConfig>>;
}

export interface UnreadableConfig {
  connectorId: string;
  /** What does not parse, field by field (`users: expected record, received string`). */
  issues: string;
  /** The webhook secret references as the config holds them, when they are strings. */
  refs: { webhookSecretRef?: string; previousWebhookSecretRef?: string; webhookRotationEndsAt?: string };
}

/** Resolves a tenant's work-tracking configuration. */
export interface IntegrationResolver {
  resolve(tenantId: string): Promise<TenantIntegrations | undefined>;
}

/** A fixed table of integrations, by tenant id. */
export function staticIntegrations(
  table: Record<
    string,
    {
      codehost?: z.input<typeof CodehostIntegrationSchema>;
      tracker?: z.input<typeof TrackerIntegrationSchema>;
      trackerCredentialsRef?: string;
    }
  >,
): IntegrationResolver {
  const parsed = new Map<string, TenantIntegrations>();
  for (const [tenantId, t] of Object.entries(table)) {
    parsed.set(tenantId, {
      tenantId,
      codehost: t.codehost && CodehostIntegrationSchema.parse(t.codehost),
      tracker: t.tracker && TrackerIntegrationSchema.parse(t.tracker),
      trackerCredentialsRef: t.trackerCredentialsRef,
    });
  }
  return { resolve: async (tenantId) => parsed.get(tenantId) };
}

/**
 * Integrations from the tenant's connectors that are not disabled (active ones first, then those
 * in `error`): the first `codehost` connector whose config parses as CodehostIntegration, the
 * first `tracker` connector whose config parses as TrackerIntegration (its `credentialsRef` holds the API token). Connectors whose config does
 * not parse are skipped (reported through `onInvalid`, and as `unreadable` when no connector of
 * their type parses).
 */
export function connectorIntegrations(
  connectors: Pick<ConnectorStore, 'list'>,
  onInvalid: (connectorId: string, issues: string) => void = () => {},
): IntegrationResolver {
  return {
    async resolve(tenantId) {
      // A connector in `error` (its pulls failing) is still the tenant's configured one: its
      // webhooks are taken — dropped, they would be recorded as processed and lost for good. Only
      // a `disabled` connector is off. Active ones first.
      const all = await connectors.list(tenantId);
      const usable = [
        ...all.filter((c) => c.status === 'active'),
        ...all.filter((c) => c.status === 'error'),
      ];
      const out: TenantIntegrations = { tenantId };
      const unreadable: Partial<Record<WebhookSource, UnreadableConfig>> = {};
      const skip = (c: (typeof all)[number], source: WebhookSource, error: z.ZodError) => {
        const issues = error.issues.map((i) => `${i.path.join('.') || '(config)'}: ${i.message}`).join('; ');
        onInvalid(c.id, issues);
        unreadable[source] ??= { connectorId: c.id, issues, refs: webhookRefsIn(c.config) };
      };
      for (const c of usable) {
        if (c.type === 'codehost' && !out.codehost) {
          const r = CodehostIntegrationSchema.safeParse(c.config);
          if (r.success) out.codehost = r.data;
          else skip(c, 'codehost', r.error);
        } else if (c.type === 'tracker' && !out.tracker) {
          const r = TrackerIntegrationSchema.safeParse(c.config);
          if (r.success) {
            out.tracker = r.data;
            out.trackerCredentialsRef = c.credentialsRef;
          } else skip(c, 'tracker', r.error);
        }
      }
      if (out.codehost) delete unreadable.codehost;
      if (out.tracker) delete unreadable.tracker;
      if (unreadable.codehost || unreadable.tracker) out.unreadable = unreadable;
      return out.codehost || out.tracker || out.unreadable ? out : undefined;
    },
  };
}

/** The webhook secret references of a config that does not parse, as far as they are strings. */
function webhookRefsIn(config: Record<string, unknown>): UnreadableConfig['refs'] {
  const refs: UnreadableConfig['refs'] = {};
  for (const key of ['webhookSecretRef', 'previousWebhookSecretRef', 'webhookRotationEndsAt'] as const) {
    const v = config[key];
    if (typeof v === 'string' && v !== '') refs[key] = v;
  }
  return refs;
}

/**
 * The secrets currently valid for a webhook source at `now`: the current one first, then the
 * previous one of a rotation unless its `webhookRotationEndsAt` has passed. `context`: the tenant
 * whose webhook it is (`tenantSecrets` reads only the references that tenant holds).
 */
export async function webhookSecrets(
  secrets: SecretStore,
  refs:
    | {
        webhookSecretRef?: string | undefined;
        previousWebhookSecretRef?: string | undefined;
        webhookRotationEndsAt?: string | undefined;
      }
    | undefined,
  now: Date = new Date(),
  context?: SecretContext,
): Promise<string[]> {
  const out: string[] = [];
  const until = refs?.webhookRotationEndsAt;
  const previousValid = until === undefined || Date.parse(until) > now.getTime();
  for (const ref of [refs?.webhookSecretRef, previousValid ? refs?.previousWebhookSecretRef : undefined]) {
    if (!ref) continue;
    const value = await secrets.get(ref, context);
    if (value) out.push(value);
  }
  return out;
}

/** The agentgov user of an external account (mapped, else the account name itself). */
export function userOf(
  users: Record<string, string>,
  ...accounts: (string | null | undefined)[]
): string | undefined {
  for (const a of accounts) if (a && users[a]) return users[a];
  return accounts.find((a): a is string => typeof a === 'string' && a.length > 0);
}
