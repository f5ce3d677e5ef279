/**
 * Migration `0012_secret_ref_owners` over a database with connectors made before it: each secret
 * reference they name is bound to the tenant of the oldest connector naming it (under every
 * spelling the env store folds together), so another tenant can no longer name it; `down` drops
 * the table. (The `bindSecretRefs` conformance cases run in conformance.pglite/postgres.test.ts.)
 */
import { makeConnector } from '@agentgov/core/testing';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrateToLatest } from '../src/index';
import { describeSqlBackends, type OpenStores, partialMigrations } from './helpers';

function upgrade(name: string, open: OpenStores): void {
  describe(name, () => {
    it('0012 binds the references of connectors made before it to the oldest one’s tenant; down drops the table', {
      timeout: 240_000,
    }, async () => {
      const s = await open({ migrate: false });
      try {
        const migrations = await partialMigrations(s);
        await migrations.up('0012');
        // Before 0012 two tenants could name one reference; the older connector's tenant keeps it.
        await s.connectors.insert(
          makeConnector({
            tenantId: 'acme',
            credentialsRef: 'shared-token',
            config: { webhookSecretRef: 'acme-hook', previousWebhookSecretRef: 'acme-old-hook' },
            createdAt: '2026-01-01T00:00:00.000Z',
          }),
        );
        await s.connectors.insert(
          makeConnector({
            tenantId: 'globex',
            credentialsRef: 'SHARED_TOKEN',
            status: 'disabled',
            config: { webhookSecretRef: 'globex-hook' },
            createdAt: '2026-01-02T00:00:00.000Z',
          }),
        );
        expect(await migrations.up('0013')).toEqual(['0012_secret_ref_owners']);
        const c = s.connectors;
        expect(
          await c.bindSecretRefs('globex', ['shared-token', 'acme-hook', 'Acme.Old.Hook', 'globex-hook']),
        ).toEqual(['shared-token', 'acme-hook', 'Acme.Old.Hook']);
        expect(await c.bindSecretRefs('acme', ['shared-token', 'acme-hook', 'acme-old-hook'])).toEqual([]);
        expect(await c.bindSecretRefs('acme', ['globex-hook'])).toEqual(['globex-hook']);
        expect(await c.bindSecretRefs('initech', ['initech-token'])).toEqual([]);

        await migrations.down('0013');
        const tables = async () =>
          (
            await sql<{ table_name: string }>`SELECT table_name FROM information_schema.tables
              WHERE table_schema = ${s.schema}`.execute(s.db)
          ).rows.map((r) => r.table_name);
        expect(await tables()).not.toContain('secret_ref_owners');
        expect(await tables()).toContain('connectors');
        expect(await migrateToLatest(s.db, s.schema)).toContain('0012_secret_ref_owners');
        expect(await c.bindSecretRefs('globex', ['shared-token'])).toEqual(['shared-token']);
      } finally {
        await s.cleanup();
      }
    });
  });
}

await describeSqlBackends('secret_ref_owners (0012)', upgrade);
