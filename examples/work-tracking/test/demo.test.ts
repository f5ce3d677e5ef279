import { describe, expect, it } from 'vitest';
import { runDemo } from '../src/demo';

describe('work-tracking replay against the reference server', () => {
  it('a signed real PR-merged payload updates the loopback tracker and is audited; bad input changes nothing', async () => {
    const lines: string[] = [];
    const r = await runDemo((l) => lines.push(l));
    expect(r.webhook.status).toBe(200);
    expect(r.webhook.body).toMatchObject({
      status: 'processed',
      action: 'pull_request.merged',
      tickets: ['ENG-12'],
    });
    expect(r.comments).toEqual([expect.stringContaining('Pull request Codertocat/Hello-World#2')]);
    expect(r.ticketStatus).toBe('Done');
    expect(r.audit.map((a) => [a.tool, a.ticketId, a.outcome]).sort()).toEqual([
      ['tracker_transition', 'ENG-12', 'success'],
      ['tracker_update', 'ENG-12', 'success'],
    ]);
    expect(r.badInput).toEqual([
      { case: 'unsigned', status: 401, error: 'invalid_webhook_secret' },
      { case: 'wrongly signed', status: 401, error: 'invalid_webhook_secret' },
      { case: 'oversized', status: 413, error: 'payload_too_large' },
      { case: 'non-JSON', status: 400, error: 'invalid_type' },
      {
        case: 'unknown event',
        status: 200,
        answer: expect.stringMatching(/^ignored: event 'deployment' is not tracked/),
      },
    ]);
    expect(r.writesAfterBadInput).toBe(0);
    expect(r.standup.totals.pullRequestsMerged).toBe(1);
    expect(lines.join('\n')).toContain('ENG-12 is "Done"');
  }, 90_000);
});
