/**
 * Contract tests against the recorded responses of the real server: every success fixture is parsed
 * and checked, every error fixture is mapped to an AnalyticsApiError. The fixture directory is
 * iterated, so a new recording without an entry in the tables (`test/contract/`) fails the suite.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AnalyticsApiError, AnalyticsValidationError } from '../src';
import type { Check } from './contract/common';
import { elsewhere, failures, notApi } from './contract/failures';
import { adminChecks } from './contract/success-admin';
import { recordChecks } from './contract/success-records';
import { statsChecks } from './contract/success-stats';
import { FIXTURE_DIR, fixtureClient, fixtureNames, fixtureText, loadFixture } from './helpers';

/** 2xx fixtures: call the method the recording belongs to and check the mapped result. */
const success: Record<string, Check> = { ...recordChecks, ...statsChecks, ...adminChecks };

describe('fixture coverage', () => {
  it('has an entry for every recorded response, classified by its status', () => {
    const names = fixtureNames();
    expect(names.length).toBeGreaterThan(90);
    const missing = names.filter((n) => !(n in success) && !(n in failures) && !(n in notApi));
    expect(missing).toEqual([]);
    const stale = [...Object.keys(success), ...Object.keys(failures), ...Object.keys(notApi)].filter(
      (n) => !names.includes(n),
    );
    expect(stale).toEqual([]);
    for (const name of names) {
      const ok = loadFixture(name).status < 300;
      expect({ name, ok }).toEqual({ name, ok: name in success || name in notApi });
    }
    for (const file of elsewhere) expect(existsSync(join(FIXTURE_DIR, file))).toBe(true);
  });
});

describe('success fixtures parse and map', () => {
  for (const [name, check] of Object.entries(success)) {
    it(name, async () => {
      await check(fixtureClient([loadFixture(name)]));
    });
  }
});

describe('error fixtures map to AnalyticsApiError', () => {
  for (const [name, { call, endpoint }] of Object.entries(failures)) {
    it(name, async () => {
      const fixture = loadFixture(name);
      const t = fixtureClient([fixture]);
      const error = await call(t.client).then(
        () => {
          throw new Error('expected a rejection');
        },
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(AnalyticsApiError);
      const e = error as AnalyticsApiError;
      expect(e.kind).toBe('http');
      expect(e.status).toBe(fixture.status);
      expect(e.endpoint).toBe(endpoint);
      const text = fixtureText(name);
      const expected = text.trim().startsWith('{')
        ? (JSON.parse(text) as { error: string }).error
        : text.trim();
      expect(e.serverMessage).toBe(expected);
      expect(e.message).toContain(expected);
      expect(e.isNotFound).toBe(fixture.status === 404);
      // Only 429/502/503/504 answers to idempotent requests are retried (default 2 retries); a 500
      // (the recordings' only 5xx: a malformed search query, a failed export) and 4xx never are.
      const method = endpoint.split(' ')[0] ?? '';
      const retried =
        [429, 502, 503, 504].includes(fixture.status) && ['GET', 'PUT', 'DELETE'].includes(method);
      expect(e.attempts).toBe(retried ? 3 : 1);
      expect(t.requests).toHaveLength(retried ? 3 : 1);
    });
  }
});

describe('inputs the server would accept or choke on are refused before sending', () => {
  for (const [name, { refused }] of Object.entries(failures)) {
    if (!refused) continue;
    it(name, async () => {
      const t = fixtureClient([loadFixture(name)]);
      const e = await refused.call(t.client).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(AnalyticsValidationError);
      expect((e as AnalyticsValidationError).field).toBe(refused.field);
      expect(t.requests).toHaveLength(0);
    });
  }
});

describe('non-API responses', () => {
  for (const [name, { call, endpoint }] of Object.entries(notApi)) {
    it(`${name} is an invalid_response`, async () => {
      const t = fixtureClient([loadFixture(name)]);
      const e = await call(t.client).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(AnalyticsApiError);
      expect((e as AnalyticsApiError).kind).toBe('invalid_response');
      expect((e as AnalyticsApiError).status).toBe(200);
      expect((e as AnalyticsApiError).endpoint).toBe(endpoint);
      expect((e as AnalyticsApiError).body).toContain('<!DOCTYPE html>');
      expect(t.requests).toHaveLength(1); // not retried
    });
  }
});
