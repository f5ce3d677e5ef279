/**
 * Hash, HMAC and key-derivation primitives (node:crypto) and canonical JSON (RFC 8785 via
 * `canonicalize`). Everything that enters a hash goes through `canonicalJson`.
 */
import { createHash, createHmac, hkdfSync } from 'node:crypto';
import * as canonicalizeModule from 'canonicalize';

/**
 * `canonicalize` is ESM-only; through the CJS build (require of an ES module) its default export
 * may arrive wrapped once more. Resolve the function either way.
 */
type Serialize = (input: unknown) => string | undefined;
const canonicalizeExport = (canonicalizeModule as { default: Serialize | { default: Serialize } }).default;
const canonicalize: Serialize =
  typeof canonicalizeExport === 'function' ? canonicalizeExport : canonicalizeExport.default;

/** 64 zeros: the `prevHash` of a tenant's first record. */
export const GENESIS_HASH = '0'.repeat(64);

const HEX64 = /^[0-9a-f]{64}$/;
export const isHash = (value: unknown): value is string => typeof value === 'string' && HEX64.test(value);

/** RFC 8785 canonical JSON. Throws on values JSON cannot represent (NaN, Infinity, lone surrogates). */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no JSON representation');
  return text;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
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
