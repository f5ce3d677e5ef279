/** Reads secrets by reference. Secrets are never stored by agentgov itself, only referenced. */
export interface SecretStore {
  /**
   * The secret under `ref`, or undefined. `context.tenantId` is the tenant whose configuration
   * names `ref` (a connector's credentials, a webhook secret): a plain store ignores it,
   * `tenantSecrets` reads only the references that tenant holds.
   */
  get(ref: string, context?: SecretContext): Promise<string | undefined>;
}

/** Whose configuration a secret is read for (`SecretStore.get`). */
export interface SecretContext {
  tenantId: string;
}

/**
 * Which tenant holds each secret reference (`ConnectorStore.bindSecretRefs`): binds the free ones
 * of `refs` to `tenantId` and returns those another tenant holds.
 */
export interface SecretRefHolders {
  bindSecretRefs(tenantId: string, refs: readonly string[]): Promise<string[]>;
}

/**
 * References of the server's own secrets — the audit log's keys (`audit-commitment-key`,
 * `audit-signing-key`) and anything else named `audit-…` or `agentgov-…`, under every spelling a
 * store reads as the same secret: the test is on `secretRefKey` (`audit_commitment_key`,
 * `Audit.Commitment.Key` and `audıt-commitment-key` — a dotless ı upper-cases to I — are all
 * AGENTGOV_SECRET_AUDIT_COMMITMENT_KEY to `EnvSecretStore`). A tenant's configuration (a
 * connector's credentials, a webhook secret) may never name one: the store is shared by every
 * tenant, and a connector sends its credentials to a URL its tenant's admin chose.
 */
export const RESERVED_SECRET_KEY = /^(?:AUDIT|AGENTGOV)_/;

/** Whether `ref` names one of the server's own secrets (see `RESERVED_SECRET_KEY`). */
export const isReservedSecretRef = (ref: string): boolean =>
  RESERVED_SECRET_KEY.test(secretRefKey(ref)) || RESERVED_SECRET_KEY.test(secretRefKey(ref.trim()));

/**
 * `secrets` as a tenant's configuration may read it. A reserved reference (the server's own keys)
 * resolves to nothing, whatever the store holds — also for a connector stored before the rule.
 * With `holders` (the ConnectorStore), a reference resolves only for the tenant that holds it
 * (`context.tenantId`; a free reference is bound to it then): the store is one namespace for
 * every tenant, and a connector sends its credentials to a URL its tenant's admin chose, so one
 * tenant naming another's reference reads nothing. Read without a tenant, it resolves nothing.
 */
export function tenantSecrets(secrets: SecretStore, holders?: SecretRefHolders): SecretStore {
  // What the holders answered, by tenant and reference key: a binding is for good (a reference is
  // never unbound), so each (tenant, reference) is asked once per process, not at every read
  // (a write to the ConnectorStore). Bounded: cleared past MEMO_LIMIT pairs.
  const memo = new Map<string, boolean>();
  return {
    async get(ref, context) {
      if (isReservedSecretRef(ref)) return undefined;
      if (holders) {
        if (context === undefined) return undefined;
        const pair = `${context.tenantId}\u0000${secretRefKey(ref)}`;
        let held = memo.get(pair);
        if (held === undefined) {
          held = (await holders.bindSecretRefs(context.tenantId, [ref])).length === 0;
          if (memo.size >= MEMO_LIMIT) memo.clear();
          memo.set(pair, held);
        }
        if (!held) return undefined;
      }
      return secrets.get(ref, context);
    },
  };
}

/** How many (tenant, reference) answers `tenantSecrets` keeps. */
const MEMO_LIMIT = 10_000;

/**
 * The key under which two references name the same secret in any store agentgov ships: upper-cased,
 * every character outside [A-Z0-9_] as `_` — how `EnvSecretStore` reads them (`mail-token`,
 * `MAIL_TOKEN` and `mail.token` are one variable). References are bound to a tenant by this key
 * (`ConnectorStore.bindSecretRefs`), so no spelling of another tenant's reference gets through.
 */
export const secretRefKey = (ref: string): string => ref.toUpperCase().replace(/[^A-Z0-9_]/g, '_');

/** A secret store that can also be written (tests, development, key generation). */
export interface WritableSecretStore extends SecretStore {
  set(ref: string, value: string): Promise<void>;
}
