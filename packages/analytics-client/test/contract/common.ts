/** What the contract tables share: the fixture ids and the request helpers. */
import { expect } from 'vitest';
import type { AnalyticsClient } from '../../src';
import type { TestClient } from '../helpers';

export const S1 = '11111111-aaaa-4bbb-8ccc-000000000001';
export const S2 = '22222222-aaaa-4bbb-8ccc-000000000002';
export const S3 = '33333333-aaaa-4bbb-8ccc-000000000003';
export const DEMO = '/home/dev/work/demo-proj';

/** Calls the method a 2xx recording belongs to and checks the mapped result. */
export type Check = (t: TestClient) => Promise<void>;

/** The one request the check made. */
export const only = (t: TestClient) => {
  expect(t.requests).toHaveLength(1);
  const req = t.requests[0];
  if (!req) throw new Error('no request');
  return req;
};
/** The query parameters of the one request. */
export const query = (t: TestClient) => Object.fromEntries(only(t).url.searchParams);

export interface Failure {
  /** Provokes the recorded answer (through `request()` where the typed method refuses the input). */
  call: (c: AnalyticsClient) => Promise<unknown>;
  endpoint: string;
  /** The typed method's call with the same input: refused before sending, naming `field`. */
  refused?: { call: (c: AnalyticsClient) => Promise<unknown>; field: string };
}
