import { expect } from 'vitest';
import { defineConformanceSuite, UNICODE_SAMPLES } from '../testing/conformance';
import type { WritableSecretStore } from './port';

const cases = {
  'get: an unknown reference is undefined': async (store: WritableSecretStore) => {
    expect(await store.get('never-set')).toBeUndefined();
  },
  'set/get: values round-trip (unicode, long, multi-line)': async (store: WritableSecretStore) => {
    const values = [
      's3cr3t',
      ...UNICODE_SAMPLES,
      '-----BEGIN PRIVATE KEY-----\nMIIBVQIBADANBgkqhkiG9w0BAQEFAASCAT8wggE7AgEAAkEA\n-----END PRIVATE KEY-----\n',
      'x'.repeat(8192),
    ];
    for (const [i, value] of values.entries()) {
      await store.set(`ref-${i}`, value);
      expect(await store.get(`ref-${i}`)).toBe(value);
    }
  },
  'set: overwrites the previous value': async (store: WritableSecretStore) => {
    await store.set('db-password', 'old');
    await store.set('db-password', 'new');
    expect(await store.get('db-password')).toBe('new');
  },
  'references are independent': async (store: WritableSecretStore) => {
    await store.set('tracker-token', 'one');
    await store.set('codehost-webhook', 'two');
    expect(await store.get('tracker-token')).toBe('one');
    expect(await store.get('codehost-webhook')).toBe('two');
    expect(await store.get('tracker')).toBeUndefined();
  },
} satisfies Record<string, (store: WritableSecretStore) => Promise<void>>;

export type SecretStoreCaseName = keyof typeof cases;
export const describeSecretStoreConformance = defineConformanceSuite<
  WritableSecretStore,
  SecretStoreCaseName
>('SecretStore', cases);
