/**
 * Policy actions in a real browser follow what the API says the caller manages
 * (`effectivePermissions` of GET /auth/userinfo), not a role list: a team_lead creates and edits
 * her team's policies, an org_admin is not offered the enterprise policy, a user is offered what
 * userinfo says. Deprecating a policy (DELETE, after a confirmation), and an editor that refuses a
 * `status` it cannot apply instead of claiming it will update.
 *
 * Skipped with the reason when /usr/bin/chromium is missing; under AGENTGOV_REQUIRE_SERVICES=1 a
 * missing browser fails the run. No sleeps: every wait is a locator's.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  call,
  describeInChromium,
  type Harness,
  seriousViolations,
  signIn,
  startHarness,
  WAIT,
} from './browser-harness';

const policyFile = (name: string, scope: string, scopeId: string, content: string, reason: string) =>
  `scope: ${scope}\nscopeId: ${scopeId}\ndomain: features\nname: ${name}\nversion: 1.0.0\ncontent:\n  ${content}\nchangeReason: ${reason}\n`;

async function openFeatures(page: Page, policy: string): Promise<void> {
  await page.getByRole('link', { name: 'Policies' }).click();
  await page.getByRole('button', { name: 'features', exact: true }).click();
  await page.getByRole('heading', { name: 'Hierarchy: features' }).waitFor(WAIT);
  await page.getByRole('button', { name: new RegExp(policy) }).click();
  await page.getByRole('heading', { level: 2, name: new RegExp(policy) }).waitFor(WAIT);
}

describeInChromium('policies by permission (real Chromium)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    // The enterprise policy every role sees on its path (alice, through the API).
    const { context, page } = await signIn(h, 'alice');
    const made = await call(page, 'POST', '/api/v1/policies', {
      scope: 'enterprise',
      scopeId: 'acme',
      domain: 'features',
      name: 'company features',
      version: '1.0.0',
      content: 'briefings: true\n',
      changeReason: 'baseline',
    });
    expect(made.status).toBe(201);
    await context.close();
  }, 300_000);
  afterAll(async () => {
    await h?.close();
  });

  it('a team_lead creates and edits her team’s policy; the enterprise policy above her is not hers to change', async () => {
    const { context, page } = await signIn(h, 'carol');
    const me = await call(page, 'GET', '/api/v1/auth/userinfo');
    expect(me.body.effectivePermissions).toMatchObject({ canManagePolicies: true, policyScope: 'team' });
    await openFeatures(page, 'company features');
    expect(await page.getByRole('button', { name: 'Edit' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Deprecate' }).count()).toBe(0);
    // A new policy starts at her own team.
    expect(await page.getByRole('button', { name: 'New features policy' }).count()).toBe(1);
    await page.getByRole('button', { name: 'New features policy' }).click();
    const editor = page.getByLabel('Policy YAML');
    expect(await editor.inputValue()).toMatch(/^scope: team\nscopeId: emea\ndomain: features\n/);
    await editor.fill(policyFile('carol-team', 'team', 'emea', 'briefings: true', 'emea baseline'));
    await page.getByText('✓ Valid policy file').waitFor(WAIT);
    await page.getByRole('button', { name: 'Review changes' }).click();
    await page.getByText('Creates carol-team at team emea.').waitFor(WAIT);
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('heading', { level: 2, name: /carol-team/ }).waitFor(WAIT);
    // Hers to edit: the change is a PUT of the same policy.
    await page.getByRole('button', { name: 'Edit' }).click();
    await editor.fill(policyFile('carol-team', 'team', 'emea', 'briefings: false', 'emea quieter'));
    await page.getByRole('button', { name: 'Review changes' }).click();
    await page.getByText('Updates carol-team (team emea).').waitFor(WAIT);
    const put = page.waitForResponse((r) => r.request().method() === 'PUT');
    await page.getByRole('button', { name: 'Apply' }).click();
    expect((await put).status()).toBe(200);
    await page.locator('.split pre.yaml', { hasText: 'briefings: false' }).waitFor(WAIT);
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  }, 300_000);

  it('an org_admin is not offered the enterprise policy; a user is offered what userinfo says', async () => {
    const bob = await signIn(h, 'bob');
    await openFeatures(bob.page, 'company features');
    expect(await bob.page.getByRole('button', { name: 'Edit' }).count()).toBe(0);
    // A new policy starts at his org.
    await bob.page.getByRole('button', { name: 'New features policy' }).click();
    expect(await bob.page.getByLabel('Policy YAML').inputValue()).toMatch(/^scope: org\nscopeId: eng\n/);
    await bob.context.close();

    const dave = await signIn(h, 'dave');
    const me = await call(dave.page, 'GET', '/api/v1/auth/userinfo');
    const { canManagePolicies } = me.body.effectivePermissions as { canManagePolicies: boolean };
    expect(canManagePolicies).toBe(false); // the spec's POST /policies roles leave out `user`
    await openFeatures(dave.page, 'company features');
    expect(await dave.page.getByRole('button', { name: 'Edit' }).count()).toBe(0);
    expect(await dave.page.getByRole('button', { name: 'New features policy' }).count()).toBe(
      canManagePolicies ? 1 : 0,
    );
    await dave.context.close();
  }, 300_000);

  it('the editor refuses a status it cannot apply; Deprecate, after a confirmation, deprecates the policy', async () => {
    const { context, page } = await signIn(h, 'carol');
    const made = await call(page, 'POST', '/api/v1/policies', {
      scope: 'team',
      scopeId: 'emea',
      domain: 'features',
      name: 'emea trial',
      version: '1.0.0',
      content: 'auto_response: false\n',
      changeReason: 'a trial',
    });
    expect(made.status).toBe(201);
    await openFeatures(page, 'emea trial');
    // `status: deprecated` in the editor: refused on its line, not "valid", nothing to review.
    await page.getByRole('button', { name: 'Edit' }).click();
    const editor = page.getByLabel('Policy YAML');
    await editor.fill(
      `${policyFile('emea trial', 'team', 'emea', 'auto_response: false', 'retire it')}status: deprecated\n`,
    );
    await expect
      .poll(() => page.locator('#policy-errors').textContent(), WAIT)
      .toMatch(/^Line 9: status: deprecated cannot be applied from the editor.*use Deprecate/);
    expect(await page.getByText('✓ Valid policy file').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Review changes' }).isDisabled()).toBe(true);
    await page.locator('.gutter span.err', { hasText: '9' }).waitFor(WAIT);
    await page.getByRole('button', { name: 'Cancel' }).click();

    // Deprecate asks first; "Keep it" keeps it.
    await page.getByRole('button', { name: 'Deprecate', exact: true }).click();
    await page.getByRole('heading', { name: 'Deprecate emea trial?' }).waitFor(WAIT);
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Keep it' }).click();
    const id = made.body.id as string;
    expect((await call(page, 'GET', `/api/v1/policies/${id}`)).body.status).toBe('active');
    await page.getByRole('button', { name: 'Deprecate', exact: true }).click();
    const deleted = page.waitForResponse((r) => r.request().method() === 'DELETE');
    await page.getByRole('button', { name: 'Deprecate emea trial' }).click();
    expect((await deleted).status()).toBe(200);
    await page.getByText(/^Deprecated: it no longer counts/).waitFor(WAIT);
    expect(await page.getByRole('button', { name: 'Edit' }).count()).toBe(0);
    await page
      .getByRole('list', { name: 'Policy hierarchy' })
      .getByRole('button', { name: /emea trial/ })
      .waitFor({ state: 'detached', ...WAIT });
    expect((await call(page, 'GET', `/api/v1/policies/${id}`)).body.status).toBe('deprecated');
    await context.close();
  }, 300_000);
});
