/** Builders of valid work-tracking records for tests (exported from `@agentgov/core/testing`). */
import { newId } from '../ids';
import { isoAt } from '../testing/fixtures';
import {
  type TrackerWrite,
  TrackerWriteSchema,
  type WebhookDelivery,
  WebhookDeliverySchema,
  type WorkActivity,
  WorkActivitySchema,
} from './schema';

export function makeDelivery(overrides: Partial<WebhookDelivery> = {}): WebhookDelivery {
  return WebhookDeliverySchema.parse({
    tenantId: 'tenant-a',
    source: 'codehost',
    deliveryId: newId(),
    event: 'pull_request',
    receivedAt: isoAt(0),
    ...overrides,
  });
}

export function makeActivity(overrides: Partial<WorkActivity> = {}): WorkActivity {
  return WorkActivitySchema.parse({
    id: newId(),
    tenantId: 'tenant-a',
    userId: 'alice',
    kind: 'pr_opened',
    occurredAt: isoAt(0),
    source: 'codehost',
    deliveryId: 'd-1',
    subject: 'acme/app#1',
    ...overrides,
  });
}

export function makeTrackerWrite(overrides: Partial<TrackerWrite> = {}): TrackerWrite {
  return TrackerWriteSchema.parse({
    id: newId(),
    tenantId: 'tenant-a',
    tool: 'tracker_update',
    ticketId: 'ENG-1',
    comment: 'Merged acme/app#1',
    nextAttemptAt: isoAt(0),
    createdAt: isoAt(0),
    userId: 'alice',
    requestId: 'req-1',
    deliveryId: 'd-1',
    policyApplied: 'integrations',
    ...overrides,
  });
}
