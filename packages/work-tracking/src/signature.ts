/**
 * Webhook signature verification: HMAC-SHA256 over the exact body bytes, compared in constant
 * time, against every currently valid secret (two during a rotation).
 *
 * Accepted signature headers, first present wins:
 * - `X-Hub-Signature-256: sha256=<hex>` — GitHub, Gitea ≥ 1.19, Forgejo;
 * - `X-Gitea-Signature: <hex>` — Gitea (also sent by Forgejo);
 * - `X-Forgejo-Signature: <hex>` — Forgejo;
 * - `X-Hub-Signature: sha256=<hex>` — Jira (WebSub `method=signature` form). GitHub's SHA-1
 *   `X-Hub-Signature: sha1=<hex>` is refused.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADERS = [
  'x-hub-signature-256',
  'x-gitea-signature',
  'x-forgejo-signature',
  'x-hub-signature',
] as const;

/** The signature the request carries, as 32 raw bytes; undefined when absent or malformed. */
export function signatureFrom(headers: Headers): Uint8Array | undefined {
  for (const name of SIGNATURE_HEADERS) {
    const value = headers.get(name)?.trim();
    if (value === undefined || value === '') continue;
    const prefixed = name === 'x-hub-signature-256' || name === 'x-hub-signature';
    const hex = prefixed ? /^sha256=([0-9a-fA-F]{64})$/.exec(value)?.[1] : value;
    if (hex === undefined || !/^[0-9a-fA-F]{64}$/.test(hex)) return undefined;
    return Buffer.from(hex, 'hex');
  }
  return undefined;
}

/** `sha256=<hex>` of `body` under `secret` (what a sender puts in `X-Hub-Signature-256`). */
export function signBody(secret: string, body: Uint8Array | string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * True when the request's signature is the HMAC-SHA256 of `body` under one of `secrets`. Every
 * secret is compared (no early exit), each comparison in constant time.
 */
export function verifySignature(body: Uint8Array, headers: Headers, secrets: readonly string[]): boolean {
  const given = signatureFrom(headers);
  if (!given) return false;
  let ok = false;
  for (const secret of secrets) {
    if (secret === '') continue;
    const expected = createHmac('sha256', secret).update(body).digest();
    if (timingSafeEqual(expected, given)) ok = true;
  }
  return ok;
}
