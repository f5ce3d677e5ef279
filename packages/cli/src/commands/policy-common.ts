import type { GovernanceError } from '@agentgov/core';

/** `field: message` of the first issue of a validation error, else the error's message. */
export function describe(error: GovernanceError): string {
  const first: unknown = Array.isArray(error.detail) ? error.detail[0] : undefined;
  if (first && typeof first === 'object' && 'field' in first && 'message' in first) {
    return `${String(first.field)}: ${String(first.message)}`;
  }
  return error.message;
}
