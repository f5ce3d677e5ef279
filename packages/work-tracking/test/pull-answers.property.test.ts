/**
 * Whatever a tracker or code host answers (any JSON, any text, any status), a pull either yields
 * well-formed items or fails with a PullError saying what was wrong — never another exception,
 * never an item with a missing id or title. The answers come through the pull's injected `fetch`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CodehostReviewSource } from '../src/sync/codehost-source';
import { PullError } from '../src/sync/pull-http';
import { JiraAssignedSource } from '../src/sync/tracker-source';
import type { ConnectorItem } from '../src/tasks';

const answer = fc.record({
  status: fc.constantFrom(200, 200, 200, 401, 404, 500),
  body: fc.oneof(
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc.string({ maxLength: 50 }),
    fc
      .array(
        fc.record(
          {
            key: fc.oneof(fc.string({ minLength: 1, maxLength: 10 }), fc.jsonValue()),
            fields: fc.record(
              {
                summary: fc.oneof(fc.string(), fc.jsonValue()),
                duedate: fc.oneof(fc.constantFrom('2026-02-30', '2026-11-28', 'x'), fc.jsonValue()),
              },
              { requiredKeys: [] },
            ),
            number: fc.oneof(fc.nat(), fc.jsonValue()),
            title: fc.oneof(fc.string(), fc.jsonValue()),
            repository_url: fc.oneof(fc.constant('http://x/repos/a/b'), fc.string()),
            requested_reviewers: fc.oneof(fc.constant([{ login: 'octocat' }]), fc.jsonValue()),
          },
          { requiredKeys: [] },
        ),
        { maxLength: 3 },
      )
      .map((items) =>
        JSON.stringify({ issues: items, items, total: items.length, total_count: items.length }),
      ),
  ),
});

const fetchOf = (a: { status: number; body: string }) => async () =>
  new Response(a.body, { status: a.status });

async function outcome(p: Promise<ConnectorItem[]>): Promise<void> {
  try {
    for (const item of await p) {
      expect(item.id.length).toBeGreaterThan(0);
      expect(typeof item.title).toBe('string');
      expect(item.deadline == null || !Number.isNaN(Date.parse(item.deadline))).toBe(true);
    }
  } catch (error) {
    expect(error).toBeInstanceOf(PullError);
  }
}

describe('pull answers (property)', () => {
  it('Jira search: items or a PullError', async () => {
    await fc.assert(
      fc.asyncProperty(answer, async (a) => {
        const source = new JiraAssignedSource({
          baseUrl: 'http://jira.test',
          accounts: { acc: 'alice' },
          fetch: fetchOf(a),
        });
        await outcome(source.items('t'));
      }),
      { numRuns: 300 },
    );
  });
  it('code host (search and repository listing): items or a PullError', async () => {
    await fc.assert(
      fc.asyncProperty(answer, fc.boolean(), async (a, listing) => {
        const source = new CodehostReviewSource({
          apiBaseUrl: 'http://gh.test',
          logins: { octocat: 'alice' },
          ...(listing ? { repositories: ['a/b'] } : {}),
          fetch: fetchOf(a),
        });
        await outcome(source.items('t'));
      }),
      { numRuns: 300 },
    );
  });
});
