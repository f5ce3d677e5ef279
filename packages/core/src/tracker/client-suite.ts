/**
 * Conformance suite of the TrackerClient port. A backend provides the client and a harness onto
 * the tracker behind it (tickets created with DEFAULT_TRACKER_WORKFLOW, their comments and status).
 */
import { expect } from 'vitest';
import { defineConformanceSuite, UNICODE_SAMPLES } from '../testing/conformance';
import { type TrackerClient, TrackerRequestError } from './port';

export interface TrackerHarness {
  /** Creates a ticket in `status` (default `In Progress`) following DEFAULT_TRACKER_WORKFLOW. */
  addTicket(key: string, status?: string): Promise<void>;
  comments(key: string): Promise<string[]>;
  status(key: string): Promise<string | undefined>;
}

export interface TrackerUnderTest {
  client: TrackerClient;
  tracker: TrackerHarness;
}

async function rejectsWith(work: Promise<unknown>, status: number): Promise<void> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TrackerRequestError);
  expect((error as TrackerRequestError).status).toBe(status);
  expect((error as TrackerRequestError).retryable).toBe(false);
}

const cases = {
  'addComment: the comment arrives verbatim (unicode, multi-line), in order, with an id': async ({
    client,
    tracker,
  }: TrackerUnderTest) => {
    await tracker.addTicket('ENG-12');
    const bodies = ['Merged acme/app#2', `${UNICODE_SAMPLES.join('\n')}\n\n*bold* [link|https://x.test]`];
    const ids = [];
    for (const b of bodies) ids.push((await client.addComment('ENG-12', b)).id);
    expect(await tracker.comments('ENG-12')).toEqual(bodies);
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(2);
  },
  'addComment: an unknown ticket is a non-retryable 404': async ({ client }: TrackerUnderTest) => {
    await rejectsWith(client.addComment('NOPE-1', 'x'), 404);
  },
  'findTransition: by name or target status, case-insensitive; undefined when not available now': async ({
    client,
    tracker,
  }: TrackerUnderTest) => {
    await tracker.addTicket('ENG-1', 'In Progress');
    expect((await client.findTransition('ENG-1', 'Done'))?.id).toBe('31');
    expect((await client.findTransition('ENG-1', 'done'))?.name).toBe('Done');
    expect((await client.findTransition('ENG-1', 'in review'))?.id).toBe('21');
    expect(await client.findTransition('ENG-1', 'Reopen')).toBeUndefined();
    await rejectsWith(client.findTransition('NOPE-1', 'Done'), 404);
  },
  'transition: moves the ticket; an unavailable transition is a 400 and changes nothing': async ({
    client,
    tracker,
  }: TrackerUnderTest) => {
    await tracker.addTicket('ENG-2', 'In Progress');
    const done = await client.findTransition('ENG-2', 'Done');
    await client.transition('ENG-2', done?.id ?? '');
    expect(await tracker.status('ENG-2')).toBe('Done');
    await rejectsWith(client.transition('ENG-2', '21'), 400);
    expect(await tracker.status('ENG-2')).toBe('Done');
    await rejectsWith(client.transition('NOPE-1', '31'), 404);
  },
  'an aborted signal rejects without writing': async ({ client, tracker }: TrackerUnderTest) => {
    await tracker.addTicket('ENG-3');
    const ac = new AbortController();
    ac.abort();
    await expect(client.addComment('ENG-3', 'never', { signal: ac.signal })).rejects.toBeDefined();
    expect(await tracker.comments('ENG-3')).toEqual([]);
  },
} satisfies Record<string, (t: TrackerUnderTest) => Promise<void>>;

export type TrackerClientCaseName = keyof typeof cases;
export const describeTrackerClientConformance = defineConformanceSuite<
  TrackerUnderTest,
  TrackerClientCaseName
>('TrackerClient', cases);
