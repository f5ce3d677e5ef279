/**
 * The admin routes of the plugin: classification records (the three layers) and the outbox of
 * tracker writes.
 */
import {
  type AnyRoute,
  ConnectorTypeSchema,
  defineRoute,
  errorSpec as err,
  IdParams,
  OUTBOX_STATES,
} from '@agentgov/core';
import { z } from 'zod';
import type { WorkTracking } from '../work-tracking';
import { ClassificationOut, Level, WriteOut } from './schemas';

const ADMINS = ['enterprise_admin', 'org_admin'] as const;

export function adminRoutes(wt: WorkTracking): AnyRoute[] {
  return [
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
