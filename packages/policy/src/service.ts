/**
 * PolicyService: create, update, deprecate, list and get policies, with content and hierarchy
 * validation at write time, RBAC by scope, and a `policy_change` audit entry per write.
 * Depends only on ports (PolicyStore, OrgDirectory, AuditSink, Clock, ids). The three writes share
 * one protocol (tenant lock, writable check, hierarchy check of the policy and its descendants,
 * store write, audit entry, change hook), kept side by side in this class; the checks it makes
 * are in `./service-checks`, the audit entry in `./service-audit`.
 */
import {
  type AuditSink,
  type CallOptions,
  type Clock,
  type DecisionRequest,
  ForbiddenError,
  type GovernanceError,
  KeyedMutex,
  NotFoundError,
  newId,
  type OrgDirectory,
  type Policy,
  PolicyCreateSchema,
  PolicyDomainSchema,
  type PolicyHierarchyViolationError,
  type PolicyStore,
  PolicyUpdateSchema,
  parseWith,
  type RunAudited,
  type ScopeRef,
  ScopeSchema,
  systemClock,
  toGovernanceError,
  transactionResult,
  ValidationError,
} from '@agentgov/core';
import { err, ok, type Result } from 'neverthrow';
import semver from 'semver';
import { z } from 'zod';
import { parsePolicyContent } from './content';
import { type DecisionExplanation, explainDecision } from './explain';
import { canManage, canSee, checkTarget, type Principal, principalChain } from './rbac';
import { auditPolicyChange } from './service-audit';
import {
  activeIdentical,
  alreadyActive,
  checkHierarchy,
  refOf,
  refuseEmpty,
  visible,
} from './service-checks';

export type PolicyServiceError =
  | ValidationError
  | ForbiddenError
  | NotFoundError
  | PolicyHierarchyViolationError
  | GovernanceError;

export interface PolicyServiceOptions {
  store: PolicyStore;
  directory: OrgDirectory;
  audit: AuditSink;
  clock?: Clock;
  newId?: () => string;
  /** Called after every successful write (e.g. `resolver.invalidate(tenantId)`). */
  onChange?: (tenantId: string, policy: Policy) => void;
  /**
   * Accept a policy for an org the directory has not seen (default false: `400 unknown org`).
   * For a directory learned from sign-ins, where an org appears only once one of its people has
   * signed in; an org's place (under the enterprise) needs no directory. See `checkTarget`.
   */
  acceptUnseenOrgs?: boolean;
  /**
   * Runs each write in one transaction (`auditedTransactions(unitOfWork, …)`): the policy and its
   * `policy_change` entry commit together or not at all, and the tenant's writes are serialised
   * by the transaction's lock (`policies:<tenant>`, an advisory lock in PostgreSQL — safe across
   * processes). Without it, writes are serialised in this process only and an audit failure after
   * the store write leaves the policy unaudited (reported as 503): give it whenever the stores
   * offer a unit of work.
   */
  transaction?: RunAudited;
}

/** The ports one write uses: the store and sink of its transaction (or the plain ones). */
interface WritePorts {
  store: PolicyStore;
  directory: OrgDirectory;
  audit: AuditSink;
}

export interface WriteContext extends CallOptions {
  /** Correlation id for the audit entry (a new id when absent). */
  requestId?: string;
}

export const PolicyListQuerySchema = z.object({
  scope: ScopeSchema.optional(),
  domain: PolicyDomainSchema.optional(),
  status: z.enum(['draft', 'active', 'deprecated']).optional(),
});

export class PolicyService {
  readonly #store: PolicyStore;
  readonly #directory: OrgDirectory;
  readonly #audit: AuditSink;
  readonly #clock: Clock;
  readonly #newId: () => string;
  readonly #onChange: ((tenantId: string, policy: Policy) => void) | undefined;
  readonly #transaction: RunAudited | undefined;
  readonly #acceptUnseenOrgs: boolean;
  /** Without a transaction: writes of one tenant are serialized in this process. */
  readonly #mutex = new KeyedMutex();

  constructor(options: PolicyServiceOptions) {
    this.#store = options.store;
    this.#directory = options.directory;
    this.#audit = options.audit;
    this.#clock = options.clock ?? systemClock;
    this.#newId = options.newId ?? newId;
    this.#onChange = options.onChange;
    this.#transaction = options.transaction;
    this.#acceptUnseenOrgs = options.acceptUnseenOrgs === true;
  }

  /** POST /policies: validates, checks hierarchy (also of descendants), stores as `active`, audits. */
  async create(
    principal: Principal,
    body: unknown,
    ctx: WriteContext = {},
  ): Promise<Result<Policy, PolicyServiceError>> {
    const parsed = parseWith(PolicyCreateSchema, body);
    if (parsed.isErr()) return err(parsed.error);
    const input = parsed.value;
    const empty = refuseEmpty(input.content);
    if (empty.isErr()) return err(empty.error);
    const content = parsePolicyContent(input.domain, input.content);
    if (content.isErr()) return err(content.error);
    return this.#guard(principal.tenantId, async (ports) => {
      const tenantId = principal.tenantId;
      const target = await checkTarget(ports.directory, tenantId, refOf(input), {
        acceptUnseenOrgs: this.#acceptUnseenOrgs,
      });
      if (target.isErr()) return err(target.error);
      if (!canManage(principal, refOf(input), target.value)) {
        return err(
          new ForbiddenError(`your role cannot write ${input.scope} policies for '${input.scopeId}'`),
        );
      }
      // A re-POST of an active policy (a retry after a lost response) creates nothing: checked
      // under the tenant's lock, so concurrent identical POSTs create one.
      const same = await activeIdentical(ports.store, tenantId, input);
      if (same) return err(alreadyActive(same.id));
      const now = this.#clock.now().toISOString();
      const policy: Policy = {
        id: this.#newId(),
        tenantId,
        scope: input.scope,
        scopeId: input.scopeId,
        domain: input.domain,
        name: input.name,
        version: input.version,
        content: input.content,
        status: 'active',
        createdBy: principal.userId,
        createdAt: now,
        updatedAt: now,
        changeReason: input.changeReason,
      };
      const checked = await checkHierarchy(ports, policy, content.value);
      if (checked.isErr()) return err(checked.error);
      await ports.store.insert(policy);
      return this.#written(ports, principal, policy, 'create', ctx);
    });
  }

  /**
   * PUT /policies/{id}: new content and changeReason (and optionally a version that must not go
   * back). When the content changes, the policy and every active policy below it are re-validated;
   * if any would become invalid the update is refused with all their violations (`policyId` set).
   */
  async update(
    principal: Principal,
    id: string,
    body: unknown,
    ctx: WriteContext = {},
  ): Promise<Result<Policy, PolicyServiceError>> {
    const parsed = parseWith(PolicyUpdateSchema, body);
    if (parsed.isErr()) return err(parsed.error);
    const input = parsed.value;
    const empty = refuseEmpty(input.content);
    if (empty.isErr()) return err(empty.error);
    return this.#guard(principal.tenantId, async (ports) => {
      const current = await this.#writable(ports, principal, id);
      if (current.isErr()) return err(current.error);
      const before = current.value;
      if (before.status === 'deprecated') {
        return err(ValidationError.invalid('status', `policy ${id} is deprecated and cannot be updated`));
      }
      if (input.version !== undefined && semver.lt(input.version, before.version)) {
        return err(
          ValidationError.invalid(
            'version',
            `version ${input.version} is lower than the current ${before.version}`,
          ),
        );
      }
      const content = parsePolicyContent(before.domain, input.content);
      if (content.isErr()) return err(content.error);
      const policy: Policy = {
        ...before,
        content: input.content,
        changeReason: input.changeReason,
        version: input.version ?? before.version,
        updatedAt: this.#clock.now().toISOString(),
      };
      if (input.content !== before.content && policy.status === 'active') {
        const checked = await checkHierarchy(ports, policy, content.value);
        if (checked.isErr()) return err(checked.error);
      }
      if (!(await ports.store.update(policy))) return err(new NotFoundError(`policy ${id}`));
      return this.#written(ports, principal, policy, 'update', ctx, before);
    });
  }

  /** DELETE /policies/{id}: the policy becomes `deprecated`; the record is kept. */
  async deprecate(
    principal: Principal,
    id: string,
    ctx: WriteContext = {},
  ): Promise<Result<Policy, PolicyServiceError>> {
    return this.#guard(principal.tenantId, async (ports) => {
      const current = await this.#writable(ports, principal, id);
      if (current.isErr()) return err(current.error);
      if (current.value.status === 'deprecated') return ok(current.value);
      const policy: Policy = {
        ...current.value,
        status: 'deprecated',
        updatedAt: this.#clock.now().toISOString(),
      };
      if (!(await ports.store.update(policy))) return err(new NotFoundError(`policy ${id}`));
      return this.#written(ports, principal, policy, 'deprecate', ctx, current.value);
    });
  }

  /** GET /policies/{id}; a policy the caller may not see is NOT_FOUND (existence is not leaked). */
  async get(principal: Principal, id: string): Promise<Result<Policy, PolicyServiceError>> {
    return this.#get({ store: this.#store, directory: this.#directory }, principal, id);
  }

  async #get(
    ports: Pick<WritePorts, 'store' | 'directory'>,
    principal: Principal,
    id: string,
  ): Promise<Result<Policy, PolicyServiceError>> {
    try {
      const policy = await ports.store.get(principal.tenantId, id);
      if (!policy) return err(new NotFoundError(`policy ${id}`));
      return (await visible(ports.directory, principal, refOf(policy)))
        ? ok(policy)
        : err(new NotFoundError(`policy ${id}`));
    } catch (error) {
      return err(toGovernanceError(error));
    }
  }

  /**
   * POST /decisions/explain: the decision for `request.userId` with its trace (see
   * `explainDecision`), for a user the caller may see policies of — scoped like the policy reads:
   * an enterprise_admin any user of the tenant, an org_admin users in their org, a team_lead users
   * in their team, anyone themselves. Any other user, and a user the directory does not know, is
   * NOT_FOUND (whether the user exists is not leaked).
   */
  async explain(
    principal: Principal,
    request: DecisionRequest & { userId: string },
  ): Promise<Result<DecisionExplanation, GovernanceError>> {
    if (request.tenantId !== principal.tenantId) return err(new NotFoundError(`user ${request.userId}`));
    try {
      if (!(await visible(this.#directory, principal, { scope: 'user', scopeId: request.userId })))
        return err(new NotFoundError(`user ${request.userId}`));
    } catch (error) {
      return err(toGovernanceError(error));
    }
    return explainDecision({ store: this.#store, directory: this.#directory }, request);
  }

  /** GET /policies?scope=&domain=&status=: every status unless filtered, scoped by role. */
  async list(principal: Principal, query: unknown = {}): Promise<Result<Policy[], PolicyServiceError>> {
    const q = parseWith(PolicyListQuerySchema, query ?? {});
    if (q.isErr()) return err(q.error);
    try {
      const filter = Object.fromEntries(Object.entries(q.value).filter(([, v]) => v !== undefined));
      const all = await this.#store.list(principal.tenantId, filter);
      const own = await principalChain(this.#directory, principal);
      const out: Policy[] = [];
      const chains = new Map<string, ScopeRef[]>();
      for (const p of all) {
        const key = `${p.scope}:${p.scopeId}`;
        let chain = chains.get(key);
        if (!chain) {
          chain = await this.#directory.ancestry(principal.tenantId, refOf(p));
          chains.set(key, chain);
        }
        if (canSee(principal, refOf(p), chain, own)) out.push(p);
      }
      return ok(out);
    } catch (error) {
      return err(toGovernanceError(error));
    }
  }

  // -------------------------------------------------------------------------------------------

  /**
   * Runs one write: in a transaction locked per tenant when the service has one (an `err` result
   * or a throw rolls everything back), else under the in-process per-tenant queue. The change
   * hook runs only after the write is committed.
   */
  async #guard(
    tenantId: string,
    work: (ports: WritePorts) => Promise<Result<Policy, PolicyServiceError>>,
  ): Promise<Result<Policy, PolicyServiceError>> {
    let result: Result<Policy, PolicyServiceError>;
    try {
      const run = this.#transaction;
      result = run
        ? await transactionResult(
            run,
            (tx) => work({ store: tx.policies, directory: tx.directory, audit: tx.sink }),
            { lock: `policies:${tenantId}` },
          )
        : await this.#mutex.run(tenantId, () =>
            work({ store: this.#store, directory: this.#directory, audit: this.#audit }),
          );
    } catch (error) {
      return err(toGovernanceError(error));
    }
    if (result.isOk()) this.#onChange?.(tenantId, result.value);
    return result;
  }

  async #writable(
    ports: WritePorts,
    principal: Principal,
    id: string,
  ): Promise<Result<Policy, PolicyServiceError>> {
    const found = await this.#get(ports, principal, id);
    if (found.isErr()) return found;
    const chain = await ports.directory.ancestry(principal.tenantId, refOf(found.value));
    if (!canManage(principal, refOf(found.value), chain)) {
      return err(
        new ForbiddenError(
          `your role cannot write ${found.value.scope} policies for '${found.value.scopeId}'`,
        ),
      );
    }
    return ok(found.value);
  }

  /** The write's `policy_change` audit entry (see `auditPolicyChange`); the policy when it is appended. */
  async #written(
    ports: WritePorts,
    principal: Principal,
    policy: Policy,
    operation: 'create' | 'update' | 'deprecate',
    ctx: WriteContext,
    before?: Policy,
  ): Promise<Result<Policy, PolicyServiceError>> {
    return auditPolicyChange(ports.audit, {
      principal,
      policy,
      operation,
      ctx,
      before,
      newId: this.#newId,
      transactional: Boolean(this.#transaction),
    });
  }
}
