/**
 * Hash, HMAC and key-derivation primitives (node:crypto). Everything that enters a hash goes
 * through `canonicalJson` (RFC 8785), which lives in `@agentgov/core` and is re-exported here.
 */
import { createHmac, hash, hkdfSync } from 'node:crypto';

export { canonicalJson, canonicalString, plainCanonicalJson } from '@agentgov/core';

/** 64 zeros: the `prevHash` of a tenant's first record. */
export const GENESIS_HASH = '0'.repeat(64);

const HEX64 = /^[0-9a-f]{64}$/;
export const isHash = (value: unknown): value is string => typeof value === 'string' && HEX64.test(value);

/** SHA-256, hex (strings as UTF-8). One-shot `crypto.hash` (Node ≥ 20.12): no Hash object per call. */
export function sha256Hex(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}

const hashToBuffer = hash as unknown as (algorithm: string, data: Uint8Array, encoding: 'buffer') => Buffer;

/** SHA-256 of bytes, as bytes (one-shot `crypto.hash`, no Hash object and no hex round trip). */
export function sha256Bytes(data: Uint8Array): Buffer {
  return hashToBuffer('sha256', data, 'buffer');
}

export function hmacHex(key: Uint8Array, data: string): string {
  return createHmac('sha256', key).update(data, 'utf8').digest('hex');
}

/** Salt of the per-tenant commitment key derivation (domain separation; versioned). */
export const COMMITMENT_KDF_SALT = 'agentgov/audit/commitment/v1';

/** Per-tenant commitment key: HKDF-SHA256(ikm = UTF-8 of the master secret, salt, info = tenantId), 32 bytes. */
export function deriveTenantKey(masterSecret: string, tenantId: string): Uint8Array {
  return new Uint8Array(
    hkdfSync('sha256', Buffer.from(masterSecret, 'utf8'), COMMITMENT_KDF_SALT, tenantId, 32),
  );
}

export function hexToBytes(hex: string): Uint8Array {
  return new Uint8Array(Buffer.from(hex, 'hex'));
}

export function bytesToHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}
