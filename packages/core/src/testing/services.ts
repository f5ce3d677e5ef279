/**
 * Tests that need a real service read its URL from the environment: `TEST_DATABASE_URL`
 * (PostgreSQL) or `TEST_REDIS_URL` (Redis). Without it — or when the service does not answer —
 * they are skipped with the reason; under `AGENTGOV_REQUIRE_SERVICES=1` (what `.ci/run` sets) a
 * missing or unreachable service fails the run instead of skipping.
 */
import { describe, it } from 'vitest';

export type ServiceVariable = 'TEST_DATABASE_URL' | 'TEST_REDIS_URL';

export type ServiceStatus = { ok: true; url: string } | { ok: false; reason: string };

export const servicesRequired = (): boolean => process.env.AGENTGOV_REQUIRE_SERVICES === '1';

/** Reads the service URL and, when given, probes it (the probe throws when it does not answer). */
export async function testService(
  variable: ServiceVariable,
  probe?: (url: string) => Promise<void>,
): Promise<ServiceStatus> {
  const url = process.env[variable];
  if (!url) return { ok: false, reason: `${variable} is not set` };
  if (probe) {
    try {
      await probe(url);
    } catch (error) {
      return { ok: false, reason: `the service at ${variable} does not answer: ${(error as Error).message}` };
    }
  }
  return { ok: true, url };
}

/**
 * Registers `body(url)` when the service is usable; otherwise a block skipped with the reason,
 * or — under AGENTGOV_REQUIRE_SERVICES=1 — a failing test naming what is missing.
 */
export async function describeWithService(
  name: string,
  variable: ServiceVariable,
  body: (url: string) => void,
  probe?: (url: string) => Promise<void>,
): Promise<void> {
  const status = await testService(variable, probe);
  if (status.ok) {
    describe(name, () => body(status.url));
  } else if (servicesRequired()) {
    describe(name, () => {
      it(`needs ${variable} (AGENTGOV_REQUIRE_SERVICES=1)`, () => {
        throw new Error(status.reason);
      });
    });
  } else {
    describe.skip(`${name} — skipped: ${status.reason}`, () => {
      it('not run', () => {});
    });
  }
}
