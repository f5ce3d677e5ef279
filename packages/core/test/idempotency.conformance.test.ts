/** The IdempotencyStore conformance suite against the in-memory store, and a broken store it rejects. */
import { describe, expect, it } from 'vitest';
import { IdempotencyKeySchema, InMemoryIdempotencyStore } from '../src/index';
import { describeIdempotencyStoreConformance } from '../src/testing/index';

describeIdempotencyStoreConformance('memory', async () => ({ store: new InMemoryIdempotencyStore() }));

describe('IdempotencyStore conformance catches broken stores', () => {
  it('a store that ignores expiry fails the expiry case', async () => {
    class NoExpiry extends InMemoryIdempotencyStore {
      override begin(...args: Parameters<InMemoryIdempotencyStore['begin']>) {
        return super.begin(args[0], args[1], new Date(0), args[3]);
      }
    }
    await expect(
      describeIdempotencyStoreConformance.cases[
        'expiry: an in-flight lock past lockUntil and a response past expiresAt count as absent'
      ](new NoExpiry()),
    ).rejects.toThrow();
  });
  it('a store that ignores the principal fails the scope case', async () => {
    class NoPrincipal extends InMemoryIdempotencyStore {
      override begin(...args: Parameters<InMemoryIdempotencyStore['begin']>) {
        return super.begin({ ...args[0], principalId: '' }, args[1], args[2], args[3]);
      }
      override complete(...args: Parameters<InMemoryIdempotencyStore['complete']>) {
        return super.complete({ ...args[0], principalId: '' }, args[1], args[2]);
      }
    }
    await expect(
      describeIdempotencyStoreConformance.cases[
        'scope: the same key of another tenant or principal is independent'
      ](new NoPrincipal()),
    ).rejects.toThrow();
  });
});

describe('IdempotencyKeySchema', () => {
  it('accepts printable keys up to 255 characters and refuses the rest', () => {
    for (const ok of ['a', '8e03978e-40d5-43e8-bc93-6894a57f9324', 'k'.repeat(255), 'a:b/c=d+e']) {
      expect(IdempotencyKeySchema.safeParse(ok).success).toBe(true);
    }
    for (const bad of ['', 'k'.repeat(256), 'has space', 'quo"te', 'back\\slash', 'é', 'tab\t']) {
      expect(IdempotencyKeySchema.safeParse(bad).success).toBe(false);
    }
  });
});
