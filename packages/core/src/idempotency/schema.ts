import { z } from 'zod';

/**
 * An `Idempotency-Key` request header (draft-ietf-httpapi-idempotency-key-header): a Structured
 * Field string (`"8e03978e-40d5-43e8-bc93-6894a57f9324"`); a bare token of the same characters is
 * accepted too, as most clients send one. 1–255 printable ASCII characters, no quotes or
 * backslashes inside.
 */
export const IdempotencyKeySchema = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'must be 1 to 255 printable ASCII characters without quotes');

/** Whose key it is: a key is only ever matched for the same tenant and principal. */
export interface IdempotencyScope {
  tenantId: string;
  principalId: string;
  key: string;
}

/** The first response to a keyed request, as replayed for a retry. */
export interface StoredResponse {
  status: number;
  /** Response headers worth replaying (content-type, location…), lower-case names. */
  headers: Record<string, string>;
  /** The body as text (JSON responses). */
  body: string;
}

/** What `begin` found for a key. */
export type IdempotencyBegin =
  /** No live record: this request now holds the key (in flight) and must `complete` or `release` it. */
  | { state: 'started' }
  /** Another request with this key is still in flight. */
  | { state: 'in_flight'; fingerprint: string }
  /** A response was stored for this key: replay it if the fingerprints match. */
  | { state: 'completed'; fingerprint: string; response: StoredResponse };
