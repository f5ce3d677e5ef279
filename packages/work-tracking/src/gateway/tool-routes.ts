/**
 * The authenticated routes of the plugin for every user: the standup tool (spec), tasks and
 * briefings (routes of our design). Admin routes are in `admin-routes.ts`.
 */
import {
  type AnyRoute,
  DELIVERY_CHANNELS,
  defineRoute,
  errorSpec as err,
  errorOf,
  IdParams,
  type OrgDirectory,
  TASK_STATUSES,
} from '@agentgov/core';
import { z } from 'zod';
import type { WorkTracking } from '../work-tracking';
import { assertMayActFor } from './access';
import {
  BriefingOut,
  ConnectorItemSchema,
  StandupBodySchema,
  StandupSummarySchema,
  TaskOut,
  UserQuery,
} from './schemas';

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
  ];
}
