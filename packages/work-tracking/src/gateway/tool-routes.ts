/**
 * The authenticated routes of the plugin: the standup tool (spec), and the routes of our design for
 * tasks, briefings, classification records and the tracker-write outbox.
 */
import {
  type AnyRoute,
  BriefingSchema,
  CLASSIFICATION_LEVELS,
  ConnectorTypeSchema,
  DataClassificationSchema,
  DELIVERY_CHANNELS,
  defineRoute,
  errorSpec as err,
  errorOf,
  IdParams,
  type OrgDirectory,
  OUTBOX_STATES,
  TASK_STATUSES,
  TaskSchema,
  TrackerWriteSchema,
  UrgencySignalsSchema,
} from '@agentgov/core';
import { z } from 'zod';
import { parseDate } from '../time-zone';
import type { WorkTracking } from '../work-tracking';
import { assertMayActFor } from './access';

const ADMINS = ['enterprise_admin', 'org_admin'] as const;
const Level = z.enum(CLASSIFICATION_LEVELS);

export const StandupBodySchema = z.object({
  userId: z.string().min(1).max(255),
  date: z.string().refine((d) => parseDate(d) !== undefined, 'must be a calendar date YYYY-MM-DD'),
});
const PR = z.object({
  subject: z.string(),
  title: z.string(),
  url: z.string(),
  tickets: z.array(z.string()),
  at: z.string(),
});
export const StandupSummarySchema = z
  .object({
    userId: z.string(),
    date: z.string(),
    timeZone: z.string(),
    from: z.string(),
    to: z.string(),
    pullRequests: z.object({
      opened: z.array(PR),
      merged: z.array(PR),
      closed: z.array(PR),
      reviewed: z.array(PR.extend({ state: z.string() })),
    }),
    pushes: z.array(
      z.object({
        repository: z.string(),
        branch: z.string(),
        commits: z.number(),
        headline: z.string(),
        tickets: z.array(z.string()),
        at: z.string(),
      }),
    ),
    ticketsUpdated: z.array(
      z.object({
        ticketId: z.string(),
        title: z.string(),
        url: z.string(),
        changes: z.array(
          z.object({ field: z.string(), from: z.string().nullable(), to: z.string().nullable() }),
        ),
        at: z.string(),
      }),
    ),
    tickets: z.array(z.string()),
    totals: z.record(z.string(), z.number()),
    summaryText: z.string(),
  })
  .meta({ id: 'StandupSummary' });

const ConnectorItemSchema = z.object({
  system: z.string().min(1).max(64),
  id: z.string().min(1).max(255),
  url: z.string().max(2048).optional(),
  userId: z.string().min(1).max(255),
  title: z.string().min(1).max(255),
  description: z.string().max(65_536).optional(),
  deadline: z.iso.datetime({ offset: true }).nullable().optional(),
  urgencySignals: UrgencySignalsSchema.partial().optional(),
  classification: Level.optional(),
});
const TaskOut = TaskSchema.meta({ id: 'Task' });
const BriefingOut = BriefingSchema.meta({ id: 'Briefing' });
const ClassificationOut = DataClassificationSchema.meta({ id: 'DataClassification' });
const WriteOut = TrackerWriteSchema.meta({ id: 'TrackerWrite' });
const UserQuery = z.object({ userId: z.string().min(1).max(255).optional() });

export function toolRoutes(wt: WorkTracking, directory: OrgDirectory): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/tools/standup_summary',
      operationId: 'standupSummary',
      summary: 'Standup summary of a user for a date in their time zone (self; admins for users in scope)',
      auth: 'required',
      rateLimit: 'work_tools',
      body: StandupBodySchema,
      responses: {
        200: { description: 'The summary', schema: StandupSummarySchema },
        400: err('missing_type / invalid_type: bad date or unknown user'),
        403: err('forbidden: another user outside your scope'),
      },
      async handler({ body }, rc) {
        await assertMayActFor(rc, body.userId, directory);
        return { status: 200, body: await wt.standup.summarize(rc.tenantId, body.userId, body.date) };
      },
    }),
    // --- tasks
    defineRoute({
      method: 'GET',
      path: '/tasks',
      operationId: 'listTasks',
      summary: 'Tasks of a user (default: the caller), highest priority first',
      auth: 'required',
      query: UserQuery.extend({ status: z.enum(TASK_STATUSES).optional() }),
      responses: {
        200: { description: 'Tasks', schema: z.object({ tasks: z.array(TaskOut), total: z.number() }) },
        403: err('forbidden'),
      },
      async handler({ query }, rc) {
        const userId = query.userId ?? rc.principal.userId;
        await assertMayActFor(rc, userId, directory);
        const tasks = await wt.tasks.list(rc.tenantId, userId, query.status ? [query.status] : undefined);
        return { status: 200, body: { tasks, total: tasks.length } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/tasks/discover',
      operationId: 'discoverTasks',
      summary: 'Discover tasks from connector items (created, merged as duplicate, or updated)',
      auth: 'required',
      rateLimit: 'work_tools',
      body: z.object({ items: z.array(ConnectorItemSchema).min(1).max(500) }),
      responses: {
        200: {
          description: 'One outcome per item',
          schema: z.object({ outcomes: z.array(z.record(z.string(), z.unknown())) }),
        },
        403: err('forbidden'),
      },
      async handler({ body }, rc) {
        for (const u of new Set(body.items.map((i) => i.userId))) await assertMayActFor(rc, u, directory);
        return { status: 200, body: { outcomes: await wt.tasks.discover(rc.tenantId, body.items) } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/tasks/{id}/status',
      operationId: 'setTaskStatus',
      summary: 'Mark an open task active or completed',
      auth: 'required',
      params: IdParams,
      body: z.object({ status: z.enum(['active', 'completed']) }),
      responses: {
        200: { description: 'The task', schema: TaskOut },
        403: err('forbidden'),
        404: err('NOT_FOUND'),
      },
      async handler({ params, body }, rc) {
        const task = await wt.tasks.get(rc.tenantId, params.id);
        await assertMayActFor(rc, task.userId, directory);
        return { status: 200, body: await wt.tasks.setStatus(rc.tenantId, params.id, body.status) };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/tasks/retention/sweep',
      operationId: 'sweepTasks',
      summary: 'Apply the task retention phases now (also run on a schedule)',
      auth: 'required',
      roles: ['enterprise_admin'],
      rateLimit: 'admin',
      responses: {
        200: {
          description: 'What changed',
          schema: z.object({ expired: z.number(), archived: z.number(), purged: z.number() }),
        },
      },
      async handler(_input, rc) {
        return { status: 200, body: await wt.tasks.sweep(rc.tenantId) };
      },
    }),
    // --- briefings
    defineRoute({
      method: 'POST',
      path: '/briefings',
      operationId: 'generateBriefing',
      summary: 'Generate the caller’s briefing (pending until delivered)',
      auth: 'required',
      rateLimit: 'work_tools',
      body: z.object({
        channel: z.enum(DELIVERY_CHANNELS).default('web_ui'),
        hours: z.number().int().min(1).max(24).optional(),
      }),
      responses: { 201: { description: 'The briefing', schema: BriefingOut } },
      async handler({ body }, rc) {
        const b = await wt.briefings.generate(rc.tenantId, rc.principal.userId, {
          channel: body.channel,
          ...(body.hours ? { hours: body.hours } : {}),
        });
        return { status: 201, body: b };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/briefings/latest',
      operationId: 'latestBriefing',
      summary: 'The latest briefing of a user (default: the caller)',
      auth: 'required',
      query: UserQuery,
      responses: { 200: { description: 'The briefing', schema: BriefingOut }, 404: err('NOT_FOUND') },
      async handler({ query }, rc) {
        const userId = query.userId ?? rc.principal.userId;
        await assertMayActFor(rc, userId, directory);
        const b = await wt.briefings.latest(rc.tenantId, userId);
        if (!b) throw errorOf('NOT_FOUND', `No briefing for ${userId}`);
        return { status: 200, body: b };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/briefings/{id}/deliver',
      operationId: 'deliverBriefing',
      summary: 'Deliver a pending briefing through its channel and mark it delivered',
      auth: 'required',
      params: IdParams,
      responses: {
        200: { description: 'The delivered briefing', schema: BriefingOut },
        404: err('NOT_FOUND'),
      },
      async handler({ params }, rc) {
        const b = await wt.briefings.get(rc.tenantId, params.id);
        await assertMayActFor(rc, b.userId, directory);
        return { status: 200, body: await wt.briefings.deliver(rc.tenantId, params.id) };
      },
    }),
    // --- classification
    defineRoute({
      method: 'GET',
      path: '/classifications',
      operationId: 'listClassifications',
      summary: 'Classification records of the tenant (optionally one dataRef, or one level)',
      auth: 'required',
      roles: ADMINS,
      query: z.object({ level: Level.optional(), dataRef: z.string().min(1).max(1024).optional() }),
      responses: {
        200: {
          description: 'Records',
          schema: z.object({ records: z.array(ClassificationOut), total: z.number() }),
        },
        403: err('forbidden'),
      },
      async handler({ query }, rc) {
        const records = query.dataRef
          ? [await wt.classification.get(rc.tenantId, query.dataRef)].filter(
              (r) => !query.level || r.level === query.level,
            )
          : await wt.classification.list(rc.tenantId, query.level);
        return { status: 200, body: { records, total: records.length } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/classifications',
      operationId: 'classifyByConnector',
      summary: 'Layer 1: assign the connector default to data not yet classified',
      auth: 'required',
      roles: ADMINS,
      rateLimit: 'admin',
      body: z.object({
        dataRef: z.string().min(1).max(1024),
        connectorType: ConnectorTypeSchema,
        defaultClassification: Level.optional(),
      }),
      responses: {
        200: {
          description: 'The record (the existing one when already classified)',
          schema: ClassificationOut,
        },
      },
      async handler({ body }, rc) {
        const connector = {
          type: body.connectorType,
          ...(body.defaultClassification ? { defaultClassification: body.defaultClassification } : {}),
        };
        return {
          status: 200,
          body: await wt.classification.assignDefault(rc.tenantId, body.dataRef, connector),
        };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/classifications/reclassify',
      operationId: 'reclassify',
      summary:
        'Layer 2: automatic reclassification by the model (raises only; counted and audited as model_call)',
      auth: 'required',
      roles: ADMINS,
      rateLimit: 'admin',
      body: z.object({ dataRef: z.string().min(1).max(1024), content: z.string().max(262_144) }),
      responses: {
        200: {
          description: 'The record, the proposal and whether it changed',
          schema: z.object({ record: ClassificationOut, proposed: Level, changed: z.boolean() }),
        },
        404: err('NOT_FOUND'),
        503: err('service_unavailable: no model configured'),
      },
      async handler({ body }, rc) {
        return {
          status: 200,
          body: await wt.classification.reclassify(rc.tenantId, body.dataRef, body.content, {
            userId: rc.principal.userId,
            requestId: rc.requestId,
            signal: rc.signal,
          }),
        };
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/classifications/override',
      operationId: 'overrideClassification',
      summary: 'Layer 3: admin override to any level, with a reason (audited)',
      auth: 'required',
      roles: ADMINS,
      rateLimit: 'admin',
      body: z.object({
        dataRef: z.string().min(1).max(1024),
        level: Level,
        reason: z.string().min(1).max(1024),
      }),
      responses: { 200: { description: 'The record', schema: ClassificationOut }, 403: err('forbidden') },
      async handler({ body }, rc) {
        return {
          status: 200,
          body: await wt.classification.override(rc.tenantId, body.dataRef, body.level, {
            userId: rc.principal.userId,
            reason: body.reason,
            requestId: rc.requestId,
          }),
        };
      },
    }),
    // --- outbox
    defineRoute({
      method: 'GET',
      path: '/work-tracking/writes',
      operationId: 'listTrackerWrites',
      summary: 'Tracker writes of the outbox (pending, delivered, failed)',
      auth: 'required',
      roles: ADMINS,
      query: z.object({
        state: z.enum(OUTBOX_STATES).optional(),
        deliveryId: z.string().min(1).max(255).optional(),
      }),
      responses: {
        200: { description: 'Writes', schema: z.object({ writes: z.array(WriteOut), total: z.number() }) },
      },
      async handler({ query }, rc) {
        const writes = await wt.store.listWrites(rc.tenantId, query);
        return { status: 200, body: { writes, total: writes.length } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/work-tracking/writes/{id}/retry',
      operationId: 'retryTrackerWrite',
      summary: 'Re-queue a failed tracker write',
      auth: 'required',
      roles: ADMINS,
      rateLimit: 'admin',
      params: IdParams,
      responses: { 200: { description: 'The re-queued write', schema: WriteOut }, 404: err('NOT_FOUND') },
      async handler({ params }, rc) {
        const w = await wt.outbox.retry(rc.tenantId, params.id);
        wt.outbox.kick();
        return { status: 200, body: w };
      },
    }),
  ];
}
