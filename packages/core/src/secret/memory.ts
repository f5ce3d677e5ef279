import { secretRefKey, type WritableSecretStore } from './port';

export class InMemorySecretStore implements WritableSecretStore {
  readonly #secrets: Map<string, string>;
  constructor(initial: Record<string, string> = {}) {
    this.#secrets = new Map(Object.entries(initial));
  }
  async get(ref: string): Promise<string | undefined> {
    return this.#secrets.get(ref);
  }
  async set(ref: string, value: string): Promise<void> {
    this.#secrets.set(ref, value);
  }
}

/**
 * The `env` secret store of the reference server: reference `db-password` (or `DB_PASSWORD`)
 * reads `AGENTGOV_SECRET_DB_PASSWORD`. References are upper-cased and every character outside
 * [A-Z0-9_] becomes `_`.
 */
export class EnvSecretStore implements WritableSecretStore {
  readonly #env: Record<string, string | undefined>;
  readonly #prefix: string;
  constructor(env: Record<string, string | undefined> = process.env, prefix = 'AGENTGOV_SECRET_') {
    this.#env = env;
    this.#prefix = prefix;
  }
  static variableName(ref: string, prefix = 'AGENTGOV_SECRET_'): string {
    return prefix + secretRefKey(ref);
  }
  async get(ref: string): Promise<string | undefined> {
    const v = this.#env[EnvSecretStore.variableName(ref, this.#prefix)];
    return v === undefined || v === '' ? undefined : v;
  }
  async set(ref: string, value: string): Promise<void> {
    this.#env[EnvSecretStore.variableName(ref, this.#prefix)] = value;
  }
}
