import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { SecretStore } from './port';

/**
 * Reads each secret from a file in one directory: reference `codehost-webhook` reads
 * `<dir>/codehost-webhook` (the layout of Kubernetes and Docker secret mounts). A trailing line
 * break is removed. References that are not a plain file name (`..`, `/`, `\`, NUL, leading dot)
 * are refused — a reference can never point outside the directory. Read on every `get`, so a
 * rotated file is picked up without a restart.
 */
export class FileSecretStore implements SecretStore {
  readonly #dir: string;
  constructor(directory: string) {
    this.#dir = path.resolve(directory);
  }
  static isSafeRef(ref: string): boolean {
    return /^[A-Za-z0-9_][A-Za-z0-9._-]{0,254}$/.test(ref) && !ref.includes('..');
  }
  async get(ref: string): Promise<string | undefined> {
    if (!FileSecretStore.isSafeRef(ref)) return undefined;
    try {
      const value = await readFile(path.join(this.#dir, ref), 'utf8');
      const trimmed = value.replace(/\r?\n$/, '');
      return trimmed === '' ? undefined : trimmed;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }
}
