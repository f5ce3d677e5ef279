/**
 * `@agentgov/core/testing`: one conformance suite per port (vitest), and fixture builders.
 * A backend runs a suite from its own test file:
 *
 *   describePolicyStoreConformance('kysely/pglite', async () => {
 *     const db = await freshDatabase();
 *     return { store: new KyselyPolicyStore(db), cleanup: () => db.destroy() };
 *   }, { skip: { 'some case': 'why this backend cannot support it' } });
 */
export * from '../activity/suite';
export * from '../rate-limit/suite';
export * from './audit-store';
export * from './briefing-store';
export * from './classification-store';
export * from './conformance';
export * from './connector-store';
export * from './exchange-store';
export * from './fixtures';
export * from './instance-registry';
export * from './org-directory';
export * from './policy-store';
export * from './secret-store';
export * from './services';
export * from './session-store';
export * from './task-store';
export * from './tenant-store';
