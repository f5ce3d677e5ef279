import { secretRefKey, secretRefsOf } from '@agentgov/core';
import type { Kysely, Migration } from 'kysely';
import { sql } from 'kysely';

/**
 * `0012_secret_ref_owners`: which tenant holds each secret reference (`secretRefKey` → tenant,
 * `KyselyConnectorStore.bindSecretRefs`). The secret store is one namespace for every tenant and a
 * connector sends its credentials to a URL its tenant's admin chose, so a reference one tenant's
 * connector named must never be another tenant's to name. Filled from the connectors already
 * stored, oldest first: where two tenants already named one reference, the older connector's
 * tenant holds it (the other's connector keeps it, and any change to it must name another).
 */
export const secretRefOwners: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`CREATE TABLE secret_ref_owners (
      ref_key   text COLLATE "C" PRIMARY KEY,
      tenant_id text NOT NULL,
      bound_at  timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
    const { rows } = await sql<{
      tenant_id: string;
      credentials_ref: string;
      config: Record<string, unknown>;
    }>`
      SELECT tenant_id, credentials_ref, config FROM connectors ORDER BY created_at, id`.execute(db);
    const owners = new Map<string, string>();
    for (const r of rows)
      for (const ref of secretRefsOf({ credentialsRef: r.credentials_ref, config: r.config ?? {} })) {
        const key = secretRefKey(ref);
        if (!owners.has(key)) owners.set(key, r.tenant_id);
      }
    for (const [key, tenantId] of owners)
      await sql`INSERT INTO secret_ref_owners (ref_key, tenant_id) VALUES (${key}, ${tenantId})`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`DROP TABLE IF EXISTS secret_ref_owners`.execute(db);
  },
};
