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

/**
 * SHA-256 of bytes, as a latin1 string of its 32 bytes (one char per byte). Node's one-shot hash
 * returns a string several times faster than a Buffer (no ArrayBuffer per digest); a latin1
 * string copies into a Buffer with a memcpy (`latin1Write`).
 */
export function sha256Latin1(data: Uint8Array): string {
  return hash('sha256', data, 'binary');
}

/** SHA-256 of bytes, as bytes (one-shot `crypto.hash`, through its latin1 string: see `sha256Latin1`). */
export function sha256Bytes(data: Uint8Array): Buffer {
  return Buffer.from(hash('sha256', data, 'binary'), 'latin1');
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
