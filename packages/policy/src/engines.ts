/**
 * The two DecisionEngine implementations: the built-in engine (effective policy + pure evaluate)
 * and a client of an OPA sidecar (REST Data API). Both deny cross-tenant inputs before anything
 * else, and both fail closed.
 */
import {
  ActionAutonomySchema,
  type AgentToAgentInput,
  type CallOptions,
  ClassificationLevelSchema,
  checkDecisionRequest,
  DECISION_DOMAINS,
  type Decision,
  type DecisionDomain,
  type DecisionEngine,
  type DecisionError,
  type DecisionRequest,
  isReadyDecisionRequest,
  PolicyEngineUnreachableError,
  type ScopeRef,
} from '@agentgov/core';
import { err, ok, type Result } from 'neverthrow';
import { z } from 'zod';
import { evaluate, REASONS } from './evaluate';
import type { EffectivePolicyResolver } from './resolver';

const crossTenant = (request: DecisionRequest): boolean => {
  if (request.domain !== 'agent-to-agent') return false;
  const input: AgentToAgentInput = request.input;
  return (
    input.initiator_tenant_id !== input.responder_tenant_id || input.initiator_tenant_id !== request.tenantId
  );
};

const denial = (reason: string, policyIds?: string[]): Decision =>
  policyIds
    ? { allow: false, deny: true, reason, constraints: {}, policyIds }
    : { allow: false, deny: true, reason, constraints: {} };
const crossTenantDecision = (): Decision => denial(REASONS.crossTenant);

/** Domains whose decision is a default deny when no active policy is on the chain at all. */
const DEFAULT_DENY_WITHOUT_POLICY: ReadonlySet<DecisionDomain> = new Set([
  'models',
  'actions',
  'data',
  'features',
]);

/** The node a request is decided for: the user, or the tenant's enterprise scope. */
export const decisionNode = (request: Pick<DecisionRequest, 'tenantId' | 'userId'>): ScopeRef =>
  request.userId
    ? { scope: 'user', scopeId: request.userId }
    : { scope: 'enterprise', scopeId: request.tenantId };

/**
 * The built-in engine's decision of a (checked) request on an effective policy computed from the
 * policies `policyIds`: a cross-tenant agent-to-agent input is denied; a domain that defaults to
 * deny without any policy is denied when `policyIds` is empty; otherwise the pure `evaluate`.
 * `explainDecision` asks it at every step of the chain, the engine once on the whole chain.
 */
export function decideOnEffective(request: DecisionRequest, content: unknown, policyIds: string[]): Decision {
  if (crossTenant(request)) return crossTenantDecision();
  return decideWithinTenant(request, content, policyIds);
}

/** `decideOnEffective` of a request already known not to be cross-tenant. */
function decideWithinTenant(request: DecisionRequest, content: unknown, policyIds: string[]): Decision {
  if (policyIds.length === 0 && DEFAULT_DENY_WITHOUT_POLICY.has(request.domain)) {
    return denial(`no active ${request.domain} policy applies (default deny)`, policyIds);
  }
  const decision = evaluate(content, request.domain, request.input, request.tenantId);
  decision.policyIds = policyIds;
  return decision;
}

/**
 * Built-in engine: resolves the effective policy of the user (or enterprise) through the resolver
 * (cached; invalidated by PolicyService writes) and evaluates it with the pure `evaluate`.
 * A store failure is `POLICY_ENGINE_UNREACHABLE`; a stored policy that no longer parses is a deny.
 */
export class BuiltinDecisionEngine implements DecisionEngine {
  readonly name = 'builtin';
  readonly #resolver: EffectivePolicyResolver;
  constructor(resolver: EffectivePolicyResolver) {
    this.#resolver = resolver;
  }

  async decide(request: DecisionRequest, options?: CallOptions): Promise<Result<Decision, DecisionError>> {
    // The hot path: a request read as it is (no Result, no ScopeRef) on the cached effective
    // policy, read synchronously — decided in the same turn it was checked in (nothing can change
    // it in between, so it is never copied). Anything else takes `#decideChecked`.
    if (isReadyDecisionRequest(request)) {
      if (crossTenant(request)) return ok(crossTenantDecision());
      const userId = request.userId;
      const cached =
        userId === undefined
          ? this.#resolver.peekCached(request.tenantId, request.domain, 'enterprise', request.tenantId)
          : this.#resolver.peekCached(request.tenantId, request.domain, 'user', userId);
      if (cached !== undefined)
        return ok(decideWithinTenant(request, cached.policy.content, cached.policyIds.slice()));
    }
    return this.#decideChecked(request, options);
  }

  async #decideChecked(
    request: DecisionRequest,
    options?: CallOptions,
  ): Promise<Result<Decision, DecisionError>> {
    const parsed = checkDecisionRequest(request);
    if (parsed.isErr()) return err(parsed.error);
    const r = parsed.value;
    if (crossTenant(r)) return ok(crossTenantDecision());
    const node = decisionNode(r);
    const effective = await this.#resolver.resolve({ tenantId: r.tenantId, domain: r.domain, node }, options);
    if (effective.isErr()) {
      const e = effective.error;
      if (e.code === 'NOT_FOUND') return ok(denial(`${e.message}: unknown users, teams and orgs are denied`));
      if (e.code === 'internal_error' && e.detail !== undefined) {
        return ok(denial(`effective policy is invalid: ${e.message}`));
      }
      return err(new PolicyEngineUnreachableError('the policy store could not be read', e));
    }
    // The caller could change a request it still holds while the policy was read: check it again.
    const again = checkDecisionRequest(r);
    if (again.isErr()) return err(again.error);
    const policyIds = effective.value.sources.map((p) => p.id);
    return ok(decideOnEffective(again.value, effective.value.content, policyIds));
  }

  async health(): Promise<boolean> {
    return true;
  }
}

// ---------------------------------------------------------------------------------------------
// OPA sidecar

/** What the OPA policy must produce at its decision path. */
export const OpaDecisionSchema = z.object({
  allow: z.boolean(),
  deny: z.boolean().optional(),
  reason: z.string().max(4096).optional(),
  constraints: z
    .object({
      max_rounds: z.number().int().min(1).optional(),
      max_classification_shared: ClassificationLevelSchema.optional(),
      autonomy: ActionAutonomySchema.optional(),
      sensitive_data_models: z.array(z.string().min(1).max(255)).max(1000).optional(),
    })
    .optional(),
  /** Ids of the policies the OPA rules decided on, when the bundle reports them. */
  policy_ids: z.array(z.string().min(1).max(255)).max(1000).optional(),
});

export interface OpaDecisionEngineOptions {
  /** Base URL of the sidecar, e.g. `http://127.0.0.1:8181`. */
  url: string;
  /** Data API path per domain (no leading slash). Defaults: `agentgov/<domain with _>/decision`, e.g. `agentgov/agent_to_agent/decision`. */
  paths?: Partial<Record<DecisionRequest['domain'], string>>;
  /** Per-request timeout in milliseconds (default 500). */
  timeoutMs?: number;
  /** Largest response body accepted, in bytes (default 64 KiB). */
  maxResponseBytes?: number;
  /** Injected fetch (default: global fetch). */
  fetch?: typeof fetch;
}

export const DEFAULT_OPA_PATHS: Record<DecisionDomain, string> = Object.fromEntries(
  DECISION_DOMAINS.map((d) => [d, `agentgov/${d.replaceAll('-', '_')}/decision`]),
) as Record<DecisionDomain, string>;

/**
 * A client of an OPA sidecar through the REST Data API: `POST {url}/v1/data/{path}` with
 * `{input}` and `{result}` back; health from `GET {url}/health`. The input document is the
 * domain's input (README, "Decision inputs and outputs") plus `tenant_id` and (when known)
 * `user_id`; the result may add `policy_ids`. The request is validated first (`err(ValidationError)`). Every failure — timeout, network error,
 * non-2xx, non-JSON, missing or wrong-shaped result — is `err(PolicyEngineUnreachableError)`.
 */
export class OpaDecisionEngine implements DecisionEngine {
  readonly name = 'opa';
  readonly #base: string;
  readonly #paths: Record<DecisionRequest['domain'], string>;
  readonly #timeoutMs: number;
  readonly #maxBytes: number;
  readonly #fetch: typeof fetch;

  constructor(options: OpaDecisionEngineOptions) {
    this.#base = options.url.replace(/\/+$/, '');
    this.#paths = { ...DEFAULT_OPA_PATHS, ...options.paths };
    this.#timeoutMs = options.timeoutMs ?? 500;
    this.#maxBytes = options.maxResponseBytes ?? 64 * 1024;
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  #signal(options?: CallOptions): AbortSignal {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    return options?.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  }

  async decide(request: DecisionRequest, options?: CallOptions): Promise<Result<Decision, DecisionError>> {
    const parsedRequest = checkDecisionRequest(request);
    if (parsedRequest.isErr()) return err(parsedRequest.error);
    request = parsedRequest.value;
    if (crossTenant(request)) return ok(crossTenantDecision());
    const path = this.#paths[request.domain].replace(/^\/+/, '');
    const url = `${this.#base}/v1/data/${path}`;
    const input: Record<string, unknown> = { ...request.input, tenant_id: request.tenantId };
    if (request.userId) input.user_id = request.userId;
    let text: string;
    try {
      const response = await this.#fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ input }),
        signal: this.#signal(options),
      });
      const declared = Number(response.headers.get('content-length') ?? 0);
      if (declared > this.#maxBytes) {
        await response.body?.cancel();
        return err(new PolicyEngineUnreachableError(`OPA answer exceeds ${this.#maxBytes} bytes`));
      }
      text = await response.text();
      if (!response.ok) {
        return err(new PolicyEngineUnreachableError(`OPA answered HTTP ${response.status} for ${path}`));
      }
    } catch (error) {
      const name = (error as Error)?.name;
      const what = name === 'TimeoutError' ? `timed out after ${this.#timeoutMs} ms` : 'could not be reached';
      return err(new PolicyEngineUnreachableError(`OPA ${what} (${path})`, error));
    }
    if (Buffer.byteLength(text) > this.#maxBytes) {
      return err(new PolicyEngineUnreachableError(`OPA answer exceeds ${this.#maxBytes} bytes`));
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (error) {
      return err(new PolicyEngineUnreachableError('OPA answered with malformed JSON', error));
    }
    if (typeof body !== 'object' || body === null || !('result' in body)) {
      return err(new PolicyEngineUnreachableError(`OPA has no document at ${path} (no result)`));
    }
    const parsed = OpaDecisionSchema.safeParse((body as { result: unknown }).result);
    if (!parsed.success) {
      return err(new PolicyEngineUnreachableError(`OPA result at ${path} is not a decision`, parsed.error));
    }
    const r = parsed.data;
    const allow = r.allow && r.deny !== true;
    const constraints: Decision['constraints'] = {};
    if (r.constraints?.max_rounds !== undefined) constraints.max_rounds = r.constraints.max_rounds;
    if (r.constraints?.max_classification_shared !== undefined)
      constraints.max_classification_shared = r.constraints.max_classification_shared;
    if (r.constraints?.autonomy !== undefined) constraints.autonomy = r.constraints.autonomy;
    if (r.constraints?.sensitive_data_models !== undefined)
      constraints.sensitive_data_models = r.constraints.sensitive_data_models;
    const decision: Decision = {
      allow,
      deny: !allow,
      reason: r.reason ?? (allow ? 'allowed by OPA' : 'denied by OPA'),
      constraints,
    };
    if (r.policy_ids !== undefined) decision.policyIds = r.policy_ids;
    return ok(decision);
  }

  async health(options?: CallOptions): Promise<boolean> {
    try {
      const response = await this.#fetch(`${this.#base}/health`, { signal: this.#signal(options) });
      await response.body?.cancel();
      return response.ok;
    } catch {
      return false;
    }
  }
}
