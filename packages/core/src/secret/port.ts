/** Reads secrets by reference. Secrets are never stored by agentgov itself, only referenced. */
export interface SecretStore {
  get(ref: string): Promise<string | undefined>;
}

/** A secret store that can also be written (tests, development, key generation). */
export interface WritableSecretStore extends SecretStore {
  set(ref: string, value: string): Promise<void>;
}
