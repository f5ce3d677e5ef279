/**
 * Times in signed payloads are the sender's to fill: one outside the years 0001–9999 (which
 * `toISOString` and the database refuse) becomes the time of receipt, never an exception (a 500).
 */
import { describe, expect, it } from 'vitest';
import { parseTrackerEvent } from '../src/events';
import { TrackerIntegrationSchema } from '../src/integrations';

const tracker = TrackerIntegrationSchema.parse({ projectKeys: ['ENG'], users: { acc: 'alice' } });
const now = new Date('2026-11-27T08:00:00.000Z');
const event = (timestamp: number) => ({
  webhookEvent: 'jira:issue_updated',
  timestamp,
  user: { accountId: 'acc' },
  issue: { key: 'ENG-12', fields: { summary: 'Login broken' } },
  changelog: { items: [{ field: 'status', fromString: 'To Do', toString: 'Done' }] },
});

describe('event times out of range', () => {
  it('a tracker timestamp beyond the years 0001–9999 is the time of receipt; a real one is kept', () => {
    for (const timestamp of [1e17, -1e17, Number.MAX_SAFE_INTEGER]) {
      const parsed = parseTrackerEvent(event(timestamp), tracker, now);
      expect(parsed).toMatchObject({ kind: 'activity', activities: [{ occurredAt: now.toISOString() }] });
    }
    const real = parseTrackerEvent(event(Date.parse('2026-11-26T10:00:00.000Z')), tracker, now);
    expect(real).toMatchObject({ activities: [{ occurredAt: '2026-11-26T10:00:00.000Z' }] });
  });
});
