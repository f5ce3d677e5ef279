/**
 * `@agentgov/core/testing`: one conformance suite per port (vitest), and fixture builders.
 * The suites live next to their port (`<domain>/suite.ts`); the machinery is `./conformance.ts`.
 * A backend runs a suite from its own test file:
 *
 *   describePolicyStoreConformance('kysely/pglite', async () => {
 *     const db = await freshDatabase();
 *     return { store: new KyselyPolicyStore(db), cleanup: () => db.destroy() };
 *   }, { skip: { 'some case': 'why this backend cannot support it' } });
 */
export * from '../activity/suite';
export * from '../audit/suite';
export * from '../briefing/suite';
export * from '../classification/suite';
export * from '../connector/suite';
export * from '../decision/suite';
export * from '../exchange/suite';
export * from '../idempotency/suite';
export * from '../instance/suite';
export * from '../org-directory/suite';
export * from '../policy/suite';
export * from '../rate-limit/suite';
export * from '../schedule/suite';
export * from '../secret/suite';
export * from '../session/suite';
export * from '../task/suite';
export * from '../tenant/suite';
export * from '../tool-call/suite';
export * from '../tracker/client-suite';
export * from '../tracker/fixtures';
export * from '../tracker/suite';
export * from '../unit-of-work/suite';
export * from './conformance';
export * from './fixtures';
export * from './services';
export * from './tcp-proxy';
