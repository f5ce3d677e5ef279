import {
  InMemoryAuditSink,
  InMemoryBriefingStore,
  InMemoryClassificationStore,
  InMemoryConnectorStore,
  InMemorySecretStore,
  InMemoryTaskStore,
  InMemoryWorkTrackingStore,
  ManualClock,
} from '@agentgov/core';
import { makeConnector } from '@agentgov/core/testing';
import { describe, expect, it } from 'vitest';
import { BriefingService, connectorStatusOf } from '../src/briefings';
import { type ClassificationModel, ClassificationService } from '../src/classification';
import { TaskService } from '../src/tasks';
import { createWorkTracking } from '../src/work-tracking';

const T = 'acme';

describe('BriefingService', () => {
  async function world() {
    const clock = new ManualClock('2025-03-03T08:00:00Z');
    const tasks = new InMemoryTaskStore();
    const svc = new TaskService({ store: tasks, counters: new InMemoryWorkTrackingStore(), clock });
    await svc.discover(T, [
      {
        system: 'tracker',
        id: 'ENG-1',
        userId: 'alice',
        title: 'Overdue incident review',
        deadline: '2025-03-02T00:00:00Z',
      },
      {
        system: 'mail',
        id: 'm1',
        userId: 'alice',
        title: 'Budget numbers for CFO',
        deadline: '2025-03-03T17:00:00Z',
        urgencySignals: { senderSeniority: 1 },
      },
      { system: 'mail', id: 'm2', userId: 'alice', title: 'Newsletter draft' },
      { system: 'mail', id: 'm3', userId: 'bob', title: 'Not alice’s' },
    ]);
    const delivered: string[] = [];
    let failDelivery = false;
    const briefings = new BriefingService({
      store: new InMemoryBriefingStore(),
      tasks,
      clock,
      calendar: {
        freeSlots: async () => [
          { start: '2025-03-03T13:00:00Z', end: '2025-03-03T13:10:00Z' },
          { start: '2025-03-03T09:00:00Z', end: '2025-03-03T11:30:00Z' },
          { start: '2025-03-03T14:00:00Z', end: '2025-03-03T15:00:00Z' },
        ],
      },
      connectorStatus: async () => ({ mail: 'ok', tracker: 'unreachable', calendar: 'partial' }),
      news: async () => [
        { title: 'Holiday schedule', relevance: 'nice-to-know', source: 'hr' },
        { title: 'Cafeteria menu', relevance: 'skip', source: 'intranet' },
        { title: 'Security update required', relevance: 'must-read', source: 'it' },
      ],
      deliver: async (b) => {
        if (failDelivery) throw new Error('mail server down');
        delivered.push(b.id);
      },
    });
    return { clock, briefings, delivered, setFail: (v: boolean) => (failDelivery = v) };
  }

  it('ranks tasks, fills free slots, raises alerts, drops skip news, maps connector status; pending until delivered', async () => {
    const { briefings, delivered, setFail } = await world();
    const b = await briefings.generate(T, 'alice', { channel: 'email' });
    expect(b.tasks.map((t) => t.rank)).toEqual([1, 2, 3]);
    expect(b.timeBlocks.map((x) => [x.start.slice(11, 16), x.end.slice(11, 16), x.label])).toEqual([
      // A deadline today from the most senior sender (32 + 20) outranks an overdue task (40).
      ['09:00', '10:30', 'Budget numbers for CFO'],
      ['10:30', '11:30', 'Overdue incident review'],
      ['14:00', '15:00', 'Newsletter draft'],
    ]);
    expect(b.alerts.map((a) => [a.type, a.severity])).toEqual([
      ['task_due_soon', 'medium'],
      ['task_overdue', 'high'],
      ['connector', 'medium'],
      ['connector', 'low'],
    ]);
    expect(b.orgNewsItems.map((n) => n.relevance)).toEqual(['must-read', 'nice-to-know']);
    expect(b.connectorStatus).toEqual({ mail: 'ok', tracker: 'unreachable', calendar: 'partial' });
    expect(b.deliveredAt).toBeNull();
    expect(await briefings.latest(T, 'alice')).toEqual(b);
    setFail(true);
    await expect(briefings.deliver(T, b.id)).rejects.toThrow('mail server down');
    expect((await briefings.get(T, b.id)).deliveredAt).toBeNull();
    setFail(false);
    const done = await briefings.deliver(T, b.id);
    expect(done.deliveredAt).toBe('2025-03-03T08:00:00.000Z');
    expect(await briefings.deliver(T, b.id)).toEqual(done);
    expect(delivered).toEqual([b.id]);
    await expect(briefings.get(T, crypto.randomUUID())).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('by default, the connector status map comes from the tenant’s connectors (the user’s and tenant-wide)', async () => {
    const connectors = new InMemoryConnectorStore();
    await connectors.insert(
      makeConnector({ tenantId: T, type: 'mail', status: 'active', lastSyncAt: '2025-03-01T00:00:00Z' }),
    );
    await connectors.insert(makeConnector({ tenantId: T, type: 'mail', userId: 'bob', status: 'error' }));
    await connectors.insert(
      makeConnector({ tenantId: T, type: 'tracker', status: 'active', lastSyncAt: null }),
    );
    await connectors.insert(makeConnector({ tenantId: T, type: 'drive', userId: 'alice', status: 'error' }));
    await connectors.insert(makeConnector({ tenantId: T, type: 'calendar', status: 'disabled' }));
    const wt = createWorkTracking({
      store: new InMemoryWorkTrackingStore(),
      tasks: new InMemoryTaskStore(),
      briefings: new InMemoryBriefingStore(),
      classifications: new InMemoryClassificationStore(),
      secrets: new InMemorySecretStore(),
      integrations: { resolve: async () => undefined },
      engine: {
        name: 'none',
        decide: async () => {
          throw new Error('unused');
        },
        health: async () => true,
      },
      audit: new InMemoryAuditSink(),
      connectors,
    });
    const b = await wt.briefings.generate(T, 'alice', { channel: 'web_ui' });
    expect(b.connectorStatus).toEqual({ mail: 'ok', tracker: 'partial', drive: 'error' });
  });

  it('maps stored connector state to briefing status', () => {
    expect(connectorStatusOf({ status: 'active', lastSyncAt: '2025-01-01T00:00:00Z' })).toBe('ok');
    expect(connectorStatusOf({ status: 'active', lastSyncAt: null })).toBe('partial');
    expect(connectorStatusOf({ status: 'error', lastSyncAt: null })).toBe('error');
    expect(connectorStatusOf({ status: 'disabled', lastSyncAt: null })).toBeUndefined();
  });
});

describe('ClassificationService (three layers)', () => {
  function world() {
    const clock = new ManualClock('2025-04-01T00:00:00Z');
    const audit = new InMemoryAuditSink(clock);
    const counters = new InMemoryWorkTrackingStore();
    let next: 'public' | 'internal' | 'confidential' | 'restricted' = 'confidential';
    const model: ClassificationModel = {
      name: 'test-classifier',
      classify: async () => ({
        level: next,
        reason: 'contains salary data',
        tokens: { input: 120, output: 8 },
      }),
    };
    const svc = new ClassificationService({
      store: new InMemoryClassificationStore(),
      audit,
      counters,
      model,
      clock,
    });
    return { svc, audit, counters, clock, propose: (l: typeof next) => (next = l) };
  }

  it('connector default, then AI may only raise, admin may set anything (who and why, audited)', async () => {
    const { svc, audit, counters, propose } = world();
    const first = await svc.assignDefault(T, 'mail:msg-1', 'mail');
    expect(first).toMatchObject({ level: 'internal', assignedBy: 'connector_default' });
    expect(await svc.assignDefault(T, 'mail:msg-1', 'drive')).toEqual(first);
    const raised = await svc.reclassify(T, 'mail:msg-1', 'salaries…', { userId: 'svc', requestId: 'r1' });
    expect(raised).toMatchObject({
      changed: true,
      proposed: 'confidential',
      record: { level: 'confidential', assignedBy: 'ai_reclassification', originalLevel: 'internal' },
    });
    propose('public');
    const notLowered = await svc.reclassify(T, 'mail:msg-1', 'x', { userId: 'svc', requestId: 'r2' });
    expect(notLowered).toMatchObject({ changed: false, record: { level: 'confidential' } });
    const overridden = await svc.override(T, 'mail:msg-1', 'public', {
      userId: 'admin-1',
      reason: 'published in the annual report',
      requestId: 'r3',
    });
    expect(overridden).toMatchObject({
      level: 'public',
      assignedBy: 'admin_override',
      overrideBy: 'admin-1',
      overrideReason: 'published in the annual report',
      originalLevel: 'internal',
    });
    propose('restricted');
    expect((await svc.reclassify(T, 'mail:msg-1', 'x', { userId: 'svc', requestId: 'r4' })).changed).toBe(
      false,
    );
    expect(await counters.counters(T)).toEqual({ modelCalls: 3 });
    expect(
      audit.entries.map((e) => [e.actionType, e.modelUsed, e.actionDetail.changed ?? e.actionDetail.tool]),
    ).toEqual([
      ['model_call', 'test-classifier', true],
      ['model_call', 'test-classifier', false],
      ['tool_invocation', null, 'classification_override'],
      ['model_call', 'test-classifier', false],
    ]);
    expect(audit.entries[0]?.modelTokens).toEqual({ input: 120, output: 8 });
    expect((await svc.list(T, 'public')).map((r) => r.dataRef)).toEqual(['mail:msg-1']);
    await expect(
      svc.reclassify(T, 'mail:unknown', 'x', { userId: 'u', requestId: 'r' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('without a model, reclassification is unavailable (503) and nothing is counted', async () => {
    const svc = new ClassificationService({
      store: new InMemoryClassificationStore(),
      audit: new InMemoryAuditSink(),
      counters: new InMemoryWorkTrackingStore(),
    });
    await svc.assignDefault(T, 'drive:doc', 'drive');
    await expect(svc.reclassify(T, 'drive:doc', 'x', { userId: 'u', requestId: 'r' })).rejects.toMatchObject({
      code: 'service_unavailable',
    });
  });
});
