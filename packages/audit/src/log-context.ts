/**
 * What the operations of one audit log share, resolved once from its options: the store, the
 * clock, the id generator, the identifier paths and the two keys, read lazily from the secret
 * store. A failed key read is not cached: the next call retries (the secret may be configured
 * later).
 */
import {
  type AuditStore,
  type Clock,
  createUlidFactory,
  type SecretStore,
  systemClock,
} from '@agentgov/core';
import { type IdentifierPaths, resolveIdentifierPaths } from './entry-input';
import {
  AuditKeyError,
  DEFAULT_COMMITMENT_KEY_REF,
  DEFAULT_SIGNING_KEY_REF,
  readCommitmentSecret,
  readSigningKey,
  type SigningKey,
  TenantKeys,
} from './keys';
import type { AuditLogOptions } from './log';
import type { VerifiedPrefix } from './verify';

export interface LogContext {
  store: AuditStore;
  secrets: SecretStore;
  clock: Clock;
  ids: () => string;
  commitmentRef: string;
  identifiers: IdentifierPaths;
  /** The commitment keys (memoizing per-tenant keys and commitments); AuditKeyError when missing. */
  tenantKeys: () => Promise<TenantKeys>;
  /** The commitment keys once `tenantKeys()` has resolved (the append's synchronous path), else undefined. */
  loadedKeys: () => TenantKeys | undefined;
  /** The checkpoint signing key; AuditKeyError when missing. */
  signingKey: () => Promise<SigningKey>;
  /** Per tenant, the prefix of its chain the last checkpoint issued here verified (the next one continues from it). */
  checkpointed: Map<string, VerifiedPrefix>;
}

/** `load()` once and share its promise; a rejected one is forgotten, so the next call loads again. */
function cachedUnlessRejected<T>(load: () => Promise<T>): () => Promise<T> {
  let cached: Promise<T> | undefined;
  return () => {
    cached ??= load();
    cached.catch(() => {
      cached = undefined;
    });
    return cached;
  };
}

export function createLogContext(options: AuditLogOptions): LogContext {
  let loaded: TenantKeys | undefined;
  const clock = options.clock ?? systemClock;
  const commitmentRef = options.commitmentKeyRef ?? DEFAULT_COMMITMENT_KEY_REF;
  const signingRef = options.signingKeyRef ?? DEFAULT_SIGNING_KEY_REF;
  return {
    store: options.store,
    secrets: options.secrets,
    clock,
    ids: options.ids ?? createUlidFactory(clock),
    commitmentRef,
    identifiers: resolveIdentifierPaths(options.identifierPaths),
    tenantKeys: cachedUnlessRejected(() =>
      readCommitmentSecret(options.secrets, commitmentRef).then((master) => {
        if (master === undefined) throw new AuditKeyError(commitmentRef, 'missing');
        loaded = new TenantKeys(master);
        return loaded;
      }),
    ),
    loadedKeys: () => loaded,
    signingKey: cachedUnlessRejected(() =>
      readSigningKey(options.secrets, signingRef).then((key) => {
        if (!key) throw new AuditKeyError(signingRef, 'missing');
        return key;
      }),
    ),
    checkpointed: new Map(),
  };
}
