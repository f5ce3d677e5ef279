import type { z } from 'zod';

/**
 * Every error code of the governance service in one table: code → HTTP status → default message.
 * The spec's own codes are kept verbatim (including their mixed casing); codes the spec leaves
 * unnamed (webhook failures, rate limit, body too large, database down) are named here.
 */
export const ERROR_CODES = {
  POLICY_HIERARCHY_VIOLATION: { status: 400, message: 'Policy content violates hierarchy constraints' },
  missing_type: { status: 400, message: 'A required field is missing' },
  invalid_type: { status: 400, message: 'A field has an invalid value' },
  authentication_required: { status: 401, message: 'No valid credentials were presented' },
  no_session: { status: 401, message: 'No session cookie was presented' },
  session_expired: { status: 401, message: 'The session has expired' },
  invalid_token: { status: 401, message: 'OIDC token validation failed' },
  invalid_webhook_secret: { status: 401, message: 'The webhook secret or signature is invalid' },
  forbidden: { status: 403, message: 'Your role lacks the privilege for this action' },
  policy_denied: { status: 403, message: 'Policy denies the action' },
  NOT_FOUND: { status: 404, message: 'The resource does not exist' },
  tenant_not_found: { status: 404, message: 'Tenant id unknown' },
  method_not_allowed: { status: 405, message: 'Method not allowed on this route' },
  payload_too_large: { status: 413, message: 'The request body exceeds the size limit' },
  unsupported_media_type: { status: 415, message: 'The request body must be application/json' },
  rate_limit_exceeded: { status: 429, message: 'Rate limit exceeded' },
  token_exchange_failed: {
    status: 502,
    message: 'Authorization-code exchange with the identity provider failed',
  },
  service_unavailable: { status: 503, message: 'A backing service is unavailable' },
  internal_error: { status: 500, message: 'Internal error' },
  // Protocol-level codes. The spec leaves their HTTP status open; these are our choices.
  CROSS_ENTERPRISE_BLOCKED: { status: 403, message: 'Cross-tenant exchange is always blocked' },
  EXCHANGE_ROUND_LIMIT: { status: 409, message: 'The exchange reached its round limit and was escalated' },
  COMMITMENT_REQUIRES_HUMAN: { status: 403, message: 'Commitments always need human approval' },
  POLICY_ENGINE_UNREACHABLE: { status: 503, message: 'The policy decision engine is unreachable' },
  // Idempotency-Key (draft-ietf-httpapi-idempotency-key-header): a key reused with another
  // request (422), a key whose first request is still being processed (409).
  idempotency_key_reused: {
    status: 422,
    message: 'This Idempotency-Key was already used with a different request',
  },
  idempotency_key_in_use: {
    status: 409,
    message: 'A request with this Idempotency-Key is still being processed',
  },
  POLICY_ALREADY_ACTIVE: {
    status: 409,
    message: 'An identical policy is already active at this scope',
  },
  CONNECTOR_ALREADY_ACTIVE: {
    status: 409,
    message: 'The tenant already has an active connector of this type, and the type allows only one',
  },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function statusOf(code: ErrorCode): number {
  return ERROR_CODES[code].status;
}

/** The spec's error body: `{error, message, detail?}`. */
export interface ErrorBody {
  error: ErrorCode;
  message: string;
  detail?: unknown;
}

/** Base class of every typed error agentgov raises or returns. */
export class GovernanceError<C extends ErrorCode = ErrorCode> extends Error {
  readonly code: C;
  readonly status: number;
  readonly detail: unknown;
  constructor(code: C, message?: string, options?: { detail?: unknown; cause?: unknown }) {
    super(
      message ?? ERROR_CODES[code].message,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = new.target.name;
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.detail = options?.detail;
  }
  toBody(): ErrorBody {
    return toErrorBody(this);
  }
}

export function toErrorBody(error: GovernanceError): ErrorBody {
  const body: ErrorBody = { error: error.code, message: error.message };
  if (error.detail !== undefined) body.detail = error.detail;
  return body;
}

export function isGovernanceError(value: unknown): value is GovernanceError {
  return value instanceof GovernanceError;
}

export class CrossEnterpriseBlockedError extends GovernanceError<'CROSS_ENTERPRISE_BLOCKED'> {
  constructor(initiatorTenantId: string, responderTenantId: string) {
    super('CROSS_ENTERPRISE_BLOCKED', undefined, { detail: { initiatorTenantId, responderTenantId } });
  }
}

export class ExchangeRoundLimitError extends GovernanceError<'EXCHANGE_ROUND_LIMIT'> {
  constructor(exchangeId: string, currentRound: number, maxRounds: number) {
    super('EXCHANGE_ROUND_LIMIT', undefined, { detail: { exchangeId, currentRound, maxRounds } });
  }
}

export class CommitmentRequiresHumanError extends GovernanceError<'COMMITMENT_REQUIRES_HUMAN'> {
  constructor(exchangeType: string) {
    super('COMMITMENT_REQUIRES_HUMAN', undefined, { detail: { exchangeType } });
  }
}

export class PolicyEngineUnreachableError extends GovernanceError<'POLICY_ENGINE_UNREACHABLE'> {
  constructor(message?: string, cause?: unknown) {
    super('POLICY_ENGINE_UNREACHABLE', message, { cause });
  }
}

/** One hierarchy violation, as reported in the `detail` array of POLICY_HIERARCHY_VIOLATION. */
export interface HierarchyViolation {
  key: string;
  scope: string;
  scopeId?: string;
  value: unknown;
  parentScope: string;
  parentScopeId?: string;
  parentValue: unknown;
  reason: string;
  /** Set when the violating policy is not the one being written (a descendant made invalid). */
  policyId?: string;
}

export class PolicyHierarchyViolationError extends GovernanceError<'POLICY_HIERARCHY_VIOLATION'> {
  declare readonly detail: HierarchyViolation[];
  constructor(violations: HierarchyViolation[], message?: string) {
    super('POLICY_HIERARCHY_VIOLATION', message, { detail: violations });
  }
}

/** One field problem, in the `detail` array of missing_type / invalid_type. */
export interface FieldIssue {
  field: string;
  message: string;
}

export class ValidationError extends GovernanceError<'missing_type' | 'invalid_type'> {
  declare readonly detail: FieldIssue[];
  readonly field: string;
  constructor(code: 'missing_type' | 'invalid_type', issues: FieldIssue[], message?: string) {
    const first = issues[0]?.field ?? '';
    super(
      code,
      message ??
        (code === 'missing_type' ? `Missing required field: ${first}` : `Invalid value for field: ${first}`),
      {
        detail: issues,
      },
    );
    this.field = first;
  }
  static invalid(field: string, message: string): ValidationError {
    return new ValidationError(
      'invalid_type',
      [{ field, message }],
      `Invalid value for field ${field}: ${message}`,
    );
  }
  static missing(field: string): ValidationError {
    return new ValidationError('missing_type', [{ field, message: 'Required' }]);
  }
}

export class NotFoundError extends GovernanceError<'NOT_FOUND' | 'tenant_not_found'> {
  constructor(what: string, code: 'NOT_FOUND' | 'tenant_not_found' = 'NOT_FOUND') {
    super(code, `${what} not found`);
  }
}

export class ForbiddenError extends GovernanceError<'forbidden'> {
  constructor(message?: string) {
    super('forbidden', message);
  }
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = input;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}

/**
 * Turns a zod failure into the spec's 400: `missing_type` when the first failing field is absent
 * from the input, `invalid_type` otherwise, naming the field; every issue is listed in `detail`.
 */
export function validationErrorFromZod(error: z.ZodError, input: unknown, prefix = ''): ValidationError {
  const issues: FieldIssue[] = error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    const field = prefix && path ? `${prefix}.${path}` : prefix || path || '(body)';
    // Absent is absent whatever the issue code: zod 4 reports a missing enum or literal field as
    // `invalid_value` and a missing union field as `invalid_union`, not `invalid_type`.
    const missing = valueAt(input, issue.path) === undefined;
    return { field, message: missing ? 'Required' : issue.message };
  });
  const first = error.issues[0];
  const missing = first !== undefined && valueAt(input, first.path) === undefined;
  return new ValidationError(missing ? 'missing_type' : 'invalid_type', issues);
}
