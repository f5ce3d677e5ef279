/**
 * The governor's vocabulary: who a session acts for, the tools it last listed, what the transport
 * in front offers during one call, and the governor's options.
 */
import type {
  ActionAutonomy,
  AuditSink,
  ClassificationLevel,
  Clock,
  DecisionEngine,
  RateLimiter,
  ToolCallInbox,
} from '@agentgov/core';
import type {
  ElicitRequestFormParams,
  ElicitResult,
  ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpLimits } from './config';
import type { Upstream } from './upstream';

/** Who a session acts for: fixed at its start (stdio configuration, or the bearer token). */
export interface SessionIdentity {
  tenantId: string;
  userId: string;
}

/** One tool as the session last listed it. */
export interface ToolEntry {
  exposed: string;
  policyTool: string;
  upstream: Upstream;
  upstreamTool: string;
  classification: ClassificationLevel;
  autonomy: ActionAutonomy;
}

export interface ToolSession {
  readonly identity: SessionIdentity;
  readonly via: 'stdio' | 'http' | 'in-process';
  readonly sessionId?: string;
  /** The tools of the last `tools/list`, by exposed name (absent before the first list). */
  listed?: Map<string, ToolEntry>;
  /** The tools that list withheld because the policy blocks them for this user, with its reason. */
  withheld?: Map<string, { entry: ToolEntry; reason: string }>;
}

/**
 * What a call's cancellation needs: an `AbortSignal` fits; the proxy's own server passes a lighter
 * one (no EventTarget per call).
 */
export interface CallSignal {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** What the transport in front offers the governor during one call. */
export interface CallContext {
  signal?: CallSignal;
  /** The client's progress token (`_meta.progressToken`), to relay the upstream's progress. */
  progressToken?: string | number;
  /** Sends a notification related to this call (progress, the `notify` message). */
  sendNotification?: (notification: ServerNotification) => Promise<void>;
  /** Asks the assistant's user (MCP elicitation), when the client supports it. */
  elicit?: (params: ElicitRequestFormParams) => Promise<ElicitResult>;
  /** The JSON-RPC id of the call (audit's requestId). */
  requestId?: string | number;
  /**
   * The arguments are the proxy's own copy (parsed from bytes for this call: the SDK's stdio and
   * Web-standard Streamable HTTP server transports): forwarded as they are, unless the call waited
   * for its approval. Otherwise — an in-process caller, or a client on any other transport, e.g.
   * the SDK's InMemoryTransport (the proxy gets the client's own message object: a shallow copy
   * still shares the nested values), either of which could change them while the call is decided
   * — and for every approved call, the canonical arguments that were decided, approved and
   * audited are forwarded, parsed again.
   */
  argumentsOwned?: boolean;
}

export interface GovernorWarning {
  upstream: string;
  tool?: string;
  problem: string;
}

export interface ToolGovernorOptions {
  upstreams: Upstream[];
  engine: DecisionEngine;
  audit: AuditSink;
  inbox: ToolCallInbox;
  limits?: Partial<McpLimits>;
  /** The model the assistant runs: results above what it may receive are withheld. */
  model?: { provider: string; model: string };
  /** Record the raw arguments in the audit entry (default false: the digest only). */
  auditArguments?: boolean;
  /** Approvals by MCP elicitation when the client supports it (default true; false: the inbox only). */
  elicitApprovals?: boolean;
  /** Per-user call limits (the gateway's limiter); none: no limit. */
  rateLimiter?: RateLimiter;
  clock?: Clock;
  /** Problems found in upstream lists (a tool withheld, a list truncated, an upstream down). */
  onWarning?: (warning: GovernorWarning) => void;
}

/** `_meta` keys the proxy adds to listed tools. */
export const META_AUTONOMY = 'agentgov.dev/autonomy';
export const META_UPSTREAM = 'agentgov.dev/upstream';
export const META_CLASSIFICATION = 'agentgov.dev/classification';
