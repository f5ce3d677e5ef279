/**
 * The decision routes of the policy plugin (mounted by `./routes`), extensions to the spec:
 * `POST /decisions` asks the decision engine for the caller (503 `POLICY_ENGINE_UNREACHABLE` when
 * it cannot answer) and `POST /decisions/explain` explains a decision for a user in the caller's
 * scope with the built-in engine's trace. Both are audited as `policy_decision` entries, the
 * explanation marked `operation: explain` with the user it was asked about.
 */
import {
  type AuditSink,
  type CallOptions,
  type Decision,
  type DecisionBody,
  DecisionBodySchema,
  type DecisionEngine,
  decisionRequestOf,
  defineRoute,
  errorSpec as err,
  errorOf,
  isReadyDecisionRequest,
  unwrapOrThrow,
} from '@agentgov/core';
import { decisionAuditEntry } from '../policy-engine';
import type { PolicyService } from '../service';
import { DecisionOut, ExplainBodySchema, ExplanationOut } from './schemas';

/** `POST /decisions` and `POST /decisions/explain`, over `engine` and `service`, audited to `audit`. */
export function decisionRoutes(deps: { engine: DecisionEngine; service: PolicyService; audit: AuditSink }) {
  const { engine, service, audit } = deps;
  return [
    defineRoute({
      method: 'POST',
      path: '/decisions',
      operationId: 'decide',
      summary:
        'Extension: a policy decision for the caller in any decision domain (agent-to-agent, integrations, models, actions, data, features; audited as policy_decision)',
      auth: 'required',
      body: DecisionBodySchema,
      exactBody: exactDecisionBody,
      responses: {
        200: { description: 'The decision', schema: DecisionOut },
        400: err('missing_type or invalid_type (unknown domain, malformed input)'),
        503: err('POLICY_ENGINE_UNREACHABLE'),
      },
      async handler({ body }, rc) {
        const { principal: p, requestId } = rc;
        // Checked once, at the edge (the exact check, or the body schema): the engine takes the
        // request without parsing it again (an exact one it only reads: plain property checks).
        const request = decisionRequestOf(body, p.tenantId, p.userId);
        const decided = await decide(engine, request, new RequestCallOptions(rc));
        const d = decided.ok ? decided.decision : undefined;
        // An AuditLog group-commits the appends of a tenant (see @agentgov/audit); each answer is
        // sent only once its own entry is written.
        const appended = await audit.append(
          decisionAuditEntry(request, d, { engine: engine.name, requestId, userId: p.userId }),
        );
        if (!decided.ok) throw decided.error;
        if (appended.isErr()) throw appended.error;
        return { status: 200, body: decided.decision };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/decisions/explain',
      operationId: 'explainDecision',
      summary:
        "Extension: why a decision comes out as it does for a user in the caller's scope — the effective policy, each level's policies and what they contributed, the decision and the policy that decided (audited as policy_decision)",
      auth: 'required',
      rateLimit: 'admin',
      body: ExplainBodySchema,
      responses: {
        200: { description: 'The decision and its trace', schema: ExplanationOut },
        400: err('missing_type or invalid_type (unknown domain, malformed input)'),
        404: err('NOT_FOUND: a user outside the caller’s scope, or unknown'),
      },
      async handler({ body }, rc) {
        const { principal: p, requestId } = rc;
        const request = { ...decisionRequestOf(body, p.tenantId, body.userId), userId: body.userId };
        const explained = unwrapOrThrow(await service.explain(p, request));
        // Audited like a decision, as the caller's: who asked about whom, and what came out.
        const entry = decisionAuditEntry(request, explained.decision, {
          engine: 'builtin',
          requestId,
          userId: p.userId,
        });
        entry.actionDetail = { ...entry.actionDetail, operation: 'explain', subjectUserId: body.userId };
        unwrapOrThrow(await audit.append(entry));
        return { status: 200, body: { ...explained, engine: engine.name } };
      },
    }),
  ];
}

/**
 * The body of `POST /decisions` as `DecisionBodySchema` would hand it back, taken as it is: a
 * plain object of exactly `domain` and `input` whose request (with stand-in ids) core's exact
 * check takes unchanged — the same check the engine makes on its hot path. No zod run, no frozen
 * copy; anything else (an error, a body zod would clean) is `undefined`, and the kernel runs the
 * schema. A property test holds it to the schema (./test/decision-body-exact.property.test.ts).
 */
export function exactDecisionBody(raw: unknown): DecisionBody | undefined {
  if (typeof raw !== 'object' || raw === null || Object.getPrototypeOf(raw) !== Object.prototype)
    return undefined;
  let keys = 0;
  for (const _ in raw) keys += 1;
  if (keys !== 2) return undefined;
  const { domain, input } = raw as { domain?: unknown; input?: unknown };
  // A fresh object core never checked: ready only when exact (no Result, no zod on a refusal).
  return isReadyDecisionRequest({ domain, tenantId: 't', userId: 'u', input })
    ? (raw as DecisionBody)
    : undefined;
}

/**
 * The engine's call options: the request's abort signal, made only when the engine reads it (the
 * built-in engine never does; on Node it costs an AbortController and a listener per request).
 */
class RequestCallOptions implements CallOptions {
  readonly #rc: { readonly signal: AbortSignal };
  constructor(rc: { readonly signal: AbortSignal }) {
    this.#rc = rc;
  }
  get signal(): AbortSignal {
    return this.#rc.signal;
  }
}

async function decide(
  engine: DecisionEngine,
  request: Parameters<DecisionEngine['decide']>[0],
  options: CallOptions,
): Promise<{ ok: true; decision: Decision } | { ok: false; error: Error }> {
  try {
    const r = await engine.decide(request, options);
    if (r.isErr()) return { ok: false, error: r.error };
    return { ok: true, decision: r.value };
  } catch (error) {
    return {
      ok: false,
      error: errorOf(
        'POLICY_ENGINE_UNREACHABLE',
        undefined,
        error instanceof Error ? error.message : undefined,
      ),
    };
  }
}
