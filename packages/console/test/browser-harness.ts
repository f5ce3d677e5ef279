/**
 * What the console's real-browser tests share: Debian's Chromium through playwright-core, the
 * reference server on an embedded database in a temporary directory, signing in through the
 * console as a dev account, axe-core, and a record of the requests the page saw fail.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import axe from 'axe-core';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { describe, it } from 'vitest';
import { loadConfig } from '../../../examples/server/src/config';
import { type RunningServer, startServer } from '../../../examples/server/src/server';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
const required = process.env.AGENTGOV_REQUIRE_SERVICES === '1';
/** Generous: CI runs this beside the rest of the suite on two cores (waits end as soon as the page is ready). */
export const WAIT = { timeout: 60_000 };

/**
 * A describe block that needs Chromium: skipped (saying why) without it, and one failing test
 * instead under AGENTGOV_REQUIRE_SERVICES=1 (CI), where a missing browser must not pass quietly.
 */
export function describeInChromium(title: string, body: () => void): void {
  if (!available && required) {
    describe(title, () => {
      it(`needs Chromium at ${CHROMIUM} (AGENTGOV_REQUIRE_SERVICES=1): apt-get install -y chromium`, () => {
        throw new Error(`${CHROMIUM} is missing`);
      });
    });
    return;
  }
  const why = available ? '' : ` — skipped: ${CHROMIUM} is missing (apt-get install -y chromium)`;
  describe.skipIf(!available)(`${title}${why}`, body);
}

export interface Harness {
  server: RunningServer;
  browser: Browser;
  close(): Promise<void>;
}

/** The reference server (`env`: its extra environment, e.g. AGENTGOV_MCP_CONFIG) and a browser. */
export async function startHarness(env: Record<string, string> = {}): Promise<Harness> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'agentgov-console-'));
  const server = await startServer(
    loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      AGENTGOV_DATA_DIR: dataDir,
      // Checkpoints only when the server stops (its last round), never on a timer.
      AGENTGOV_CHECKPOINT_INTERVAL: '0',
    }),
    { env },
  );
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  return {
    server,
    browser,
    async close() {
      await browser.close();
      await server.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * What failed on the server's own origin: requests answered 4xx/5xx and the browser console's
 * errors (a failed request logs one), before the sign-in came back (`signedOut`) and after it.
 */
export interface Failures {
  signedOut: string[];
  responses: string[];
  errors: string[];
}

/** Signs in through the console: `/` → the console → the issuer's page → back to the console. */
export async function signIn(
  h: Harness,
  who: string,
): Promise<{ context: BrowserContext; page: Page; failures: Failures }> {
  const context = await h.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const failures: Failures = { signedOut: [], responses: [], errors: [] };
  const origin = new URL(h.server.url).origin;
  let signedIn = false;
  page.on('response', (r) => {
    const url = new URL(r.url());
    if (url.origin !== origin) return;
    if (url.pathname.endsWith('/auth/callback')) signedIn = true;
    if (r.status() >= 400)
      (signedIn ? failures.responses : failures.signedOut).push(
        `${r.status()} ${r.request().method()} ${url.pathname}`,
      );
  });
  page.on('console', (m) => {
    if (m.type() === 'error' && m.location().url.startsWith(origin) && signedIn)
      failures.errors.push(`${m.text()} (${m.location().url})`);
  });
  await page.goto(`${h.server.url}/`);
  await page.waitForURL(`${h.server.url}/console/`, WAIT);
  await page.getByRole('link', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Sign in to agentgov' }).waitFor(WAIT);
  await page.getByRole('button', { name: `Sign in as ${who}` }).click();
  await page.waitForURL(`${h.server.url}/console/`, WAIT);
  await page.getByText(`${who}@acme.example`).waitFor(WAIT);
  return { context, page, failures };
}

/** A JSON request from the page, as the signed-in user (the session cookie): its status and body. */
export async function call(
  page: Page,
  method: string,
  url: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  return page.evaluate(
    async ([method, url, body]) => {
      const r = await fetch(url as string, {
        method: method as string,
        headers: { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: r.status, body: (await r.json().catch(() => ({}))) as Record<string, unknown> };
    },
    [method, url, body] as const,
  );
}

export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(axe.source);
  const found = await page.evaluate(async () => {
    const run = (window as unknown as { axe: typeof axe }).axe.run;
    const r = await run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.map((n) => n.target.join(' ')),
    }));
  });
  return found
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.join(', ')}`);
}
