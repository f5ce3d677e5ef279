/**
 * Classification in three layers (spec: DataClassification), through the ClassificationStore:
 * (1) the connector default when data is first seen; (2) automatic reclassification by a model,
 * which may only raise the level (and never touches an admin override); (3) admin override to any
 * level, with who and why, audited. Every model call is counted (`modelCalls`) and audited as
 * `model_call`.
 */
import {
  type AuditSink,
  type ClassificationLevel,
  type ClassificationStore,
  type Clock,
  type ConnectorType,
  classifyByConnector,
  type DataClassification,
  errorOf,
  overrideClassification,
  reclassifyByAi,
  systemClock,
  type WorkTrackingStore,
} from '@agentgov/core';

/** A model that proposes a level for a piece of data (port). */
export interface ClassificationModel {
  readonly name: string;
  classify(
    input: { dataRef: string; content: string },
    options?: { signal?: AbortSignal },
  ): Promise<{
    level: ClassificationLevel;
    reason: string;
    tokens?: { input: number; output: number };
  }>;
}

export interface ClassificationServiceOptions {
  store: ClassificationStore;
  audit: AuditSink;
  counters: Pick<WorkTrackingStore, 'increment'>;
  model?: ClassificationModel;
  clock?: Clock;
}

export class ClassificationService {
  readonly #o: ClassificationServiceOptions;
  readonly #clock: Clock;
  constructor(options: ClassificationServiceOptions) {
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
  }

  async get(tenantId: string, dataRef: string): Promise<DataClassification> {
    const r = await this.#o.store.get(tenantId, dataRef);
    if (!r) throw errorOf('NOT_FOUND', `No classification for ${dataRef}`);
    return r;
  }

  async list(tenantId: string, level?: ClassificationLevel): Promise<DataClassification[]> {
    return this.#o.store.list(tenantId, level ? { level } : {});
  }

  /** Layer 1: the connector's default, when the data has no record yet (an existing record is kept). */
  async assignDefault(
    tenantId: string,
    dataRef: string,
    connector: ConnectorType | { type: ConnectorType; defaultClassification?: ClassificationLevel },
  ): Promise<DataClassification> {
    const existing = await this.#o.store.get(tenantId, dataRef);
    if (existing) return existing;
    const r = classifyByConnector(tenantId, dataRef, connector, this.#clock.now());
    await this.#o.store.put(r);
    return r;
  }

  /** Layer 2: asks the model; a higher level raises the record, anything else leaves it as is. */
  async reclassify(
    tenantId: string,
    dataRef: string,
    content: string,
    context: { userId: string; requestId: string; signal?: AbortSignal },
  ): Promise<{ record: DataClassification; proposed: ClassificationLevel; changed: boolean }> {
    const model = this.#o.model;
    if (!model) throw errorOf('service_unavailable', 'No classification model is configured');
    const current = await this.get(tenantId, dataRef);
    const answer = await model.classify(
      { dataRef, content },
      context.signal ? { signal: context.signal } : {},
    );
    await this.#o.counters.increment(tenantId, 'modelCalls');
    const next = reclassifyByAi(current, answer.level, this.#clock.now());
    const changed = next !== current;
    if (changed) await this.#o.store.put(next);
    const a = await this.#o.audit.append({
      tenantId,
      userId: context.userId,
      actionType: 'model_call',
      actionDetail: {
        purpose: 'classification',
        dataRef,
        proposed: answer.level,
        previous: current.level,
        level: next.level,
        changed,
        reason: answer.reason,
      },
      modelUsed: model.name,
      modelTokens: answer.tokens ?? null,
      dataClassification: next.level,
      policyApplied: 'classification',
      policyResult: 'allow',
      outcome: 'success',
      requestId: context.requestId,
    });
    if (a.isErr()) throw a.error;
    return { record: next, proposed: answer.level, changed };
  }

  /** Layer 3: an admin sets any level, with a reason; audited. Data without a record gets one. */
  async override(
    tenantId: string,
    dataRef: string,
    level: ClassificationLevel,
    admin: { userId: string; reason: string; requestId: string },
  ): Promise<DataClassification> {
    const now = this.#clock.now();
    const current = (await this.#o.store.get(tenantId, dataRef)) ?? {
      tenantId,
      dataRef,
      level,
      assignedBy: 'admin_override' as const,
      originalLevel: null,
      overrideBy: null,
      overrideReason: null,
      assessedAt: now.toISOString(),
    };
    const next = overrideClassification(current, level, { userId: admin.userId, reason: admin.reason }, now);
    await this.#o.store.put(next);
    const a = await this.#o.audit.append({
      tenantId,
      userId: admin.userId,
      actionType: 'tool_invocation',
      actionDetail: {
        tool: 'classification_override',
        dataRef,
        level,
        previous: current.level,
        reason: admin.reason,
      },
      dataClassification: level,
      policyApplied: 'classification',
      policyResult: 'allow',
      policyReason: admin.reason,
      outcome: 'success',
      requestId: admin.requestId,
    });
    if (a.isErr()) throw a.error;
    return next;
  }
}
