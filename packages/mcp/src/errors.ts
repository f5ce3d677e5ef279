/**
 * What the proxy answers when it refuses a call: an MCP (JSON-RPC) error whose `data.agentgov`
 * names the refusal and its reason. Codes in the JSON-RPC server range, one per kind; an unknown
 * tool is the protocol's own `InvalidParams`.
 */
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

export const REFUSAL_CODES = {
  /** The tool is unknown, or not in the session's last list (added since, or only like a listed one). */
  unknown_tool: ErrorCode.InvalidParams,
  /** Malformed arguments (not an object, not JSON). */
  invalid_arguments: ErrorCode.InvalidParams,
  /** The actions policy denies the call (block, unknown user, a human said no). */
  policy_denied: -32003,
  /** The call waits for a human: `data.agentgov.approvalId`; call again with the same arguments once approved. */
  approval_required: -32004,
  /** The decision engine cannot answer: the proxy refuses (fail closed). */
  policy_engine_unreachable: -32005,
  rate_limit_exceeded: -32006,
  /** Arguments or result above the configured limits. */
  payload_too_large: -32007,
  /** The upstream did not answer within its timeout. */
  upstream_timeout: ErrorCode.RequestTimeout,
  /** The upstream cannot be reached (down, restarts exhausted). */
  upstream_unavailable: -32008,
  /** The audit entry could not be written: the result is not delivered. */
  audit_unavailable: -32009,
} as const;
export type RefusalKind = keyof typeof REFUSAL_CODES;

export interface RefusalData {
  agentgov: { refusal: RefusalKind; reason: string; tool?: string; approvalId?: string; expiresAt?: string };
}

export class ToolCallRefused extends McpError {
  readonly refusal: RefusalKind;
  readonly reason: string;
  constructor(
    kind: RefusalKind,
    reason: string,
    extra: Omit<RefusalData['agentgov'], 'refusal' | 'reason'> = {},
  ) {
    super(REFUSAL_CODES[kind], `${kind}: ${reason}`, { agentgov: { refusal: kind, reason, ...extra } });
    // Without McpError's "MCP error <code>:" prefix: the message goes on the wire as it is, and the
    // client's McpError adds the prefix itself (it would show twice).
    this.message = `${kind}: ${reason}`;
    this.name = 'ToolCallRefused';
    this.refusal = kind;
    this.reason = reason;
  }
}

/**
 * The upstream's own JSON-RPC error, as it sent it: passed through unchanged — its code (even the
 * SDK's -32000 and -32001, which an upstream, or another proxy in front of one, may send itself),
 * its message without McpError's "MCP error <code>:" prefix (the client's McpError adds it once)
 * and its data. Never a refusal of this proxy, and an answer for the upstream's health.
 */
export class UpstreamError extends McpError {
  constructor(code: number, message: string, data?: unknown) {
    super(code, message, data);
    this.message = message;
  }

  /** The upstream's error the SDK's `Client` received (its message without the prefix the SDK added). */
  static of(error: McpError): UpstreamError {
    const prefix = `MCP error ${error.code}: `;
    const message = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
    return new UpstreamError(error.code, message, error.data);
  }
}

/** The refusal carried by an error a client received, when it is one of the proxy's. */
export function refusalOf(error: unknown): RefusalData['agentgov'] | undefined {
  const data = (error as { data?: unknown } | null)?.data as Partial<RefusalData> | undefined;
  const a = data?.agentgov;
  return a && typeof a === 'object' && typeof a.refusal === 'string' ? a : undefined;
}
