/** Reads secrets by reference. Secrets are never stored by agentgov itself, only referenced. */
export interface SecretStore {
  get(ref: string): Promise<string | undefined>;
}

/**
 * References of the server's own secrets — the audit log's keys (`audit-commitment-key`,
 * `audit-signing-key`) and anything else named `audit-…` or `agentgov-…`, whatever separates the
 * words (`EnvSecretStore` reads `audit_commitment_key` and `Audit.Commitment.Key` from the same
 * variable as `audit-commitment-key`) — which a tenant's
 * configuration (a connector's credentials, a webhook secret) may never name: the store is shared
 * by every tenant, and a connector sends its credentials to a URL its tenant's admin chose.
 */
export const RESERVED_SECRET_REF = /^\s*(?:audit|agentgov)[^a-z0-9]/i;

/** Whether `ref` names one of the server's own secrets (see `RESERVED_SECRET_REF`). */
export const isReservedSecretRef = (ref: string): boolean => RESERVED_SECRET_REF.test(ref.trim());

/**
 * `secrets` as a tenant's configuration may read it: a reserved reference (the server's own keys)
 * resolves to nothing, whatever the store holds — also for a connector stored before the rule.
 */
export function tenantSecrets(secrets: SecretStore): SecretStore {
  return { get: (ref) => (isReservedSecretRef(ref) ? Promise.resolve(undefined) : secrets.get(ref)) };
}

/** A secret store that can also be written (tests, development, key generation). */
export interface WritableSecretStore extends SecretStore {
  set(ref: string, value: string): Promise<void>;
}
