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
import { err, ok, type Result, VerificationError } from '@agentgov/core';

export const SIGNATURE_HEADERS = [
  'x-hub-signature-256',
  'x-gitea-signature',
  'x-forgejo-signature',
  'x-hub-signature',
] as const;
export type SignatureHeader = (typeof SIGNATURE_HEADERS)[number];

/** The first signature header present and what it carries (32 raw bytes; undefined when malformed). */
function readSignature(
  headers: Headers,
): { header: SignatureHeader; bytes: Uint8Array | undefined } | undefined {
  for (const name of SIGNATURE_HEADERS) {
    const value = headers.get(name)?.trim();
    if (value === undefined || value === '') continue;
    const prefixed = name === 'x-hub-signature-256' || name === 'x-hub-signature';
    const hex = prefixed ? /^sha256=([0-9a-fA-F]{64})$/.exec(value)?.[1] : value;
    const valid = hex !== undefined && /^[0-9a-fA-F]{64}$/.test(hex);
    return { header: name, bytes: valid ? Buffer.from(hex, 'hex') : undefined };
  }
  return undefined;
}

/** The signature the request carries, as 32 raw bytes; undefined when absent or malformed. */
export function signatureFrom(headers: Headers): Uint8Array | undefined {
  return readSignature(headers)?.bytes;
}

/** `sha256=<hex>` of `body` under `secret` (what a sender puts in `X-Hub-Signature-256`). */
export function signBody(secret: string, body: Uint8Array | string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** A verified webhook signature: the header that carried it. */
export interface VerifiedSignature {
  header: SignatureHeader;
}

/**
 * Verifies that the request's signature is the HMAC-SHA256 of `body` under one of `secrets`. Every
 * secret is compared (no early exit), each comparison in constant time. Never throws: a refusal is
 * a `VerificationError` — `invalid_key` when no secret is usable (none, or only empty ones),
 * `invalid_signature` when the signature is absent, malformed (SHA-1 too) or made with no secret
 * given; the message says which.
 */
export function verifySignature(
  body: Uint8Array,
  headers: Headers,
  secrets: readonly string[],
): Result<VerifiedSignature, VerificationError> {
  const usable = secrets.filter((secret) => secret !== '');
  if (usable.length === 0)
    return err(new VerificationError('invalid_key', 'no webhook secret is configured'));
  const given = readSignature(headers);
  if (!given) return err(new VerificationError('invalid_signature', 'the request carries no signature'));
  if (!given.bytes)
    return err(
      new VerificationError('invalid_signature', `the ${given.header} header is not a SHA-256 signature`),
    );
  let matched = false;
  for (const secret of usable) {
    const expected = createHmac('sha256', secret).update(body).digest();
    if (timingSafeEqual(expected, given.bytes)) matched = true;
  }
  return matched
    ? ok({ header: given.header })
    : err(new VerificationError('invalid_signature', 'the signature matches no webhook secret'));
}
