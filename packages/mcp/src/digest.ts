/**
 * The digest an approval is bound to: SHA-256 (hex) of the RFC 8785 canonical JSON of the call's
 * arguments (absent arguments are `{}`), so the same arguments in any key order give the same
 * digest and any change gives another.
 */
import { hash } from 'node:crypto';
import { canonicalJson } from '@agentgov/core';

/** The canonical JSON of a call's arguments (`{}` when absent); throws on values JSON cannot hold. */
export function canonicalArguments(args: Record<string, unknown> | undefined): string {
  return canonicalJson(args ?? {});
}

/**
 * `canonicalArguments` of arguments that are a JSON object, else undefined (not an object, or
 * values JSON cannot hold): a refusal's entry then goes without a digest.
 */
export function canonicalOrUndefined(args: unknown): string | undefined {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return undefined;
  try {
    return canonicalArguments(args as Record<string, unknown>);
  } catch {
    return undefined;
  }
}

/** `sha256:<hex>` of the canonical arguments. */
export function argumentsDigest(args: Record<string, unknown> | undefined): string {
  return digestOfCanonical(canonicalArguments(args));
}

/** `sha256:<hex>` of a canonical JSON text (one-shot `crypto.hash`: no Hash object per call). */
export function digestOfCanonical(canonical: string): string {
  return `sha256:${hash('sha256', canonical, 'hex')}`;
}
