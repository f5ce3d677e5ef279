/**
 * The browser login, in a real headless Chromium (Debian's `chromium`, driven by playwright-core):
 * GET /api/v1/auth/login → the development issuer's sign-in page (agentgov's, with the development
 * accounts and their roles) → back to GET /api/v1/auth/callback → the console (/console/) with the
 * session cookie; a call
 * with the cookie; logout. And the rendered API reference page (`/api/v1/docs`). Skipped with the reason when /usr/bin/chromium is missing; under
 * AGENTGOV_REQUIRE_SERVICES=1 (CI, which installs it) a missing browser fails the run.
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config';
import { type RunningServer, startServer } from '../src/server';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
const required = process.env.AGENTGOV_REQUIRE_SERVICES === '1';

if (!available && required) {
  describe('browser login (real Chromium)', () => {
    it('needs Chromium at /usr/bin/chromium (AGENTGOV_REQUIRE_SERVICES=1): apt-get install -y chromium', () => {
      throw new Error(`${CHROMIUM} is missing`);
    });
  });
} else {
  describe.skipIf(!available).each(['express', 'koa'] as const)(
    `browser login (real Chromium) on %s${available ? '' : ` — skipped: ${CHROMIUM} is missing (apt-get install -y chromium)`}`,
    (framework) => {
      let server: RunningServer;
      let browser: Browser;
      beforeAll(async () => {
        server = await startServer(
          loadConfig({ DATABASE_URL: 'memory:', PORT: '0', AGENTGOV_FRAMEWORK: framework }),
          { env: {} },
        );
        browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
      }, 60_000);
      afterAll(async () => {
        await browser?.close();
        await server?.close();
      });

      it('logs in through the dev issuer, calls the API with the cookie, and logs out', async () => {
        const api = `${server.url}/api/v1`;
        const context = await browser.newContext();
        const page = await context.newPage();
        await page.goto(`${api}/auth/login`);
        // The development issuer's page names agentgov and lists the accounts with their roles.
        await page.getByRole('heading', { name: 'Sign in to agentgov' }).waitFor();
        expect(await page.getByRole('row', { name: /^alice enterprise_admin/ }).count()).toBe(1);
        expect(await page.getByRole('row', { name: /^carol team_lead/ }).count()).toBe(1);
        await page.fill('input[name="login"]', 'carol');
        await page.fill('input[name="password"]', 'any');
        await Promise.all([
          page.waitForURL(`${server.url}/console/`, { timeout: 30_000 }),
          page.locator('main form').first().locator('button[type="submit"]').click(),
        ]);
        // The landing page is the console, signed in as carol.
        await page.getByText('carol@acme.example').waitFor();
        const me = await page.evaluate(async (url) => (await fetch(url)).json(), `${api}/auth/userinfo`);
        expect(me).toMatchObject({ userId: 'carol', tenantId: 'acme', roles: ['team_lead'] });
        const cookie = (await context.cookies()).find((c) => c.name === 'session');
        expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Strict' });

        // A call with the cookie, from the page (same origin, as an app would make it).
        const listed = await page.evaluate(async (url) => {
          const res = await fetch(url);
          return { status: res.status, body: await res.json() };
        }, `${api}/policies`);
        expect(listed.status).toBe(200);
        expect(Array.isArray(listed.body)).toBe(true);

        const out = await page.evaluate(
          async (url) =>
            (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' } })).status,
          `${api}/auth/logout`,
        );
        expect(out).toBe(200);
        const after = await page.evaluate(async (url) => (await fetch(url)).status, `${api}/auth/userinfo`);
        expect(after).toBe(401);
        expect((await context.cookies()).find((c) => c.name === 'session')).toBeUndefined();
        await context.close();
      }, 90_000);

      it('renders the API reference page (Redoc over /openapi.json, no network beyond the server)', async () => {
        const context = await browser.newContext();
        const page = await context.newPage();
        // Everything the page loads comes from this server: nothing is requested elsewhere (Redoc's
        // footer logo, on a CDN in the published bundle, is inline) and the CSP blocks nothing.
        const outside: string[] = [];
        const violations: string[] = [];
        const local = (url: string) => url.startsWith(server.url) || /^(data|blob):/.test(url);
        page.on('request', (r) => {
          if (!local(r.url())) outside.push(r.url());
        });
        page.on('console', (m) => {
          if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
        });
        await page.goto(`${server.url}/api/v1/docs`);
        // Redoc renders each operation's summary; one from the kernel, one from a domain plugin.
        await page
          .locator('h2', { hasText: 'Health of the gateway and its backing services' })
          .waitFor({ timeout: 30_000 });
        expect(await page.locator('h2', { hasText: 'Create a policy (hierarchy validated' }).count()).toBe(1);
        const logo = page.locator('img[alt="redocly logo"]');
        await logo.waitFor({ timeout: 30_000 });
        expect(await logo.getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/);
        expect(await logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(
          true,
        );
        expect(outside).toEqual([]);
        expect(violations).toEqual([]);
        await context.close();
      }, 90_000);

      it("the development issuer's other pages (an error, sign-out) load nothing from outside it", async () => {
        const issuer = server.devIssuer!.issuer;
        const context = await browser.newContext();
        const page = await context.newPage();
        const outside: string[] = [];
        page.on('request', (r) => {
          if (![issuer, server.url].some((origin) => r.url().startsWith(origin))) outside.push(r.url());
        });
        // An authorization request of an unknown client: oidc-provider's error page.
        const error = await page.goto(`${issuer}/auth?client_id=nobody&response_type=code&scope=openid`);
        expect(error?.status()).toBe(400);
        await page.getByRole('heading', { name: 'The sign-in could not continue' }).waitFor();
        expect(await page.content()).toContain('invalid_client');
        // Signed in at the issuer (the sign-in page), then RP-initiated logout: its confirmation page.
        await page.goto(`${server.url}/api/v1/auth/login`);
        await Promise.all([
          page.waitForURL(`${server.url}/console/`, { timeout: 30_000 }),
          page.getByRole('button', { name: 'Sign in as alice' }).click(),
        ]);
        await page.goto(`${issuer}/session/end`);
        await page.getByRole('heading', { name: 'Sign out of agentgov?' }).waitFor();
        await Promise.all([
          page.waitForLoadState('load'),
          page.getByRole('button', { name: /Yes, sign me out/ }).click(),
        ]);
        await page.getByRole('heading', { name: 'You are signed out' }).waitFor();
        for (const html of [await page.content()]) expect(html).not.toContain('googleapis');
        expect(outside).toEqual([]);
        await context.close();
      }, 90_000);
    },
  );
}
