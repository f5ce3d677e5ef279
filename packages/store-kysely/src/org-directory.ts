import type { OrgDirectory, ScopeRef, UserPlacement } from '@agentgov/core';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from './schema';

/** JavaScript's default string order (UTF-16 code units), the order of `InMemoryOrgDirectory`. */
const sorted = (ids: Iterable<string>): string[] => [...new Set(ids)].sort();

/**
 * `OrgDirectory` on PostgreSQL / PGlite, learned from ID-token claims, with exactly the semantics
 * of `InMemoryOrgDirectory`: per tenant, the orgs seen (`directory_orgs`), each team with its org
 * when known (`directory_teams`, org NULL for a team seen without one) and each user's placement
 * (`directory_users`: org and team as placed; a user's org falls back to their team's org when
 * read). Orgs and teams are never forgotten; placing a user again moves them.
 */
export class KyselyOrgDirectory implements OrgDirectory {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /**
   * One statement (so it applies completely or not at all): the user's org is the claimed one, or
   * else the known org of the claimed team; the org is recorded; the team is recorded with that org
   * (a team already known keeps its org unless an org is given); the user row is replaced.
   */
  async place(tenantId: string, userId: string, placement: UserPlacement): Promise<void> {
    const team = placement.team || null;
    const org = placement.orgUnit || null;
    await sql`WITH resolved AS (
        SELECT COALESCE(${org}::text,
          (SELECT t.org_id FROM directory_teams t WHERE t.tenant_id = ${tenantId} AND t.team_id = ${team}::text)
        ) AS org_id
      ),
      orgs AS (
        INSERT INTO directory_orgs (tenant_id, org_id)
        SELECT ${tenantId}, org_id FROM resolved WHERE org_id IS NOT NULL
        ON CONFLICT (tenant_id, org_id) DO NOTHING
      ),
      teams AS (
        INSERT INTO directory_teams (tenant_id, team_id, org_id)
        SELECT ${tenantId}, ${team}::text, org_id FROM resolved WHERE ${team}::text IS NOT NULL
        ON CONFLICT (tenant_id, team_id) DO UPDATE SET org_id = EXCLUDED.org_id WHERE EXCLUDED.org_id IS NOT NULL
      )
      INSERT INTO directory_users (tenant_id, user_id, org_id, team_id)
      SELECT ${tenantId}, ${userId}, org_id, ${team}::text FROM resolved
      ON CONFLICT (tenant_id, user_id) DO UPDATE SET org_id = EXCLUDED.org_id, team_id = EXCLUDED.team_id`.execute(
      this.#db,
    );
  }

  async ancestry(tenantId: string, node: ScopeRef): Promise<ScopeRef[]> {
    const chain: ScopeRef[] = [{ scope: 'enterprise', scopeId: tenantId }];
    switch (node.scope) {
      case 'enterprise':
        return chain;
      case 'org':
        return [...chain, node];
      case 'team': {
        const { rows } = await sql<{ org_id: string | null }>`SELECT org_id FROM directory_teams
          WHERE tenant_id = ${tenantId} AND team_id = ${node.scopeId}`.execute(this.#db);
        const org = rows[0]?.org_id;
        if (org) chain.push({ scope: 'org', scopeId: org });
        return [...chain, node];
      }
      default: {
        const { rows } = await sql<{ org_id: string | null; team_id: string | null }>`
          SELECT COALESCE(u.org_id, t.org_id) AS org_id, u.team_id FROM directory_users u
          LEFT JOIN directory_teams t ON t.tenant_id = u.tenant_id AND t.team_id = u.team_id
          WHERE u.tenant_id = ${tenantId} AND u.user_id = ${node.scopeId}`.execute(this.#db);
        const row = rows[0];
        if (row?.org_id) chain.push({ scope: 'org', scopeId: row.org_id });
        if (row?.team_id) chain.push({ scope: 'team', scopeId: row.team_id });
        return [...chain, node];
      }
    }
  }

  async children(tenantId: string, node: ScopeRef): Promise<ScopeRef[]> {
    switch (node.scope) {
      case 'enterprise': {
        if (node.scopeId !== tenantId) return [];
        const { rows } = await sql<{ id: string }>`SELECT org_id AS id FROM directory_orgs
          WHERE tenant_id = ${tenantId}`.execute(this.#db);
        return sorted(rows.map((r) => r.id)).map((scopeId) => ({ scope: 'org', scopeId }));
      }
      case 'org': {
        const { rows: teams } = await sql<{ id: string }>`SELECT team_id AS id FROM directory_teams
          WHERE tenant_id = ${tenantId} AND org_id = ${node.scopeId}`.execute(this.#db);
        // Members of the org placed without a team (their org as placed, not derived).
        const { rows: loose } = await sql<{ id: string }>`SELECT user_id AS id FROM directory_users
          WHERE tenant_id = ${tenantId} AND org_id = ${node.scopeId} AND team_id IS NULL`.execute(this.#db);
        return [
          ...sorted(teams.map((r) => r.id)).map((scopeId): ScopeRef => ({ scope: 'team', scopeId })),
          ...sorted(loose.map((r) => r.id)).map((scopeId): ScopeRef => ({ scope: 'user', scopeId })),
        ];
      }
      case 'team': {
        const { rows } = await sql<{ id: string }>`SELECT user_id AS id FROM directory_users
          WHERE tenant_id = ${tenantId} AND team_id = ${node.scopeId}`.execute(this.#db);
        return sorted(rows.map((r) => r.id)).map((scopeId) => ({ scope: 'user', scopeId }));
      }
      default:
        return [];
    }
  }

  async users(tenantId: string, within?: ScopeRef): Promise<string[]> {
    let query: RawBuilder<{ id: string }>;
    if (!within || within.scope === 'enterprise') {
      query = sql<{ id: string }>`SELECT user_id AS id FROM directory_users WHERE tenant_id = ${tenantId}`;
    } else if (within.scope === 'team') {
      query = sql<{ id: string }>`SELECT user_id AS id FROM directory_users
        WHERE tenant_id = ${tenantId} AND team_id = ${within.scopeId}`;
    } else if (within.scope === 'org') {
      query = sql<{ id: string }>`SELECT u.user_id AS id FROM directory_users u
        LEFT JOIN directory_teams t ON t.tenant_id = u.tenant_id AND t.team_id = u.team_id
        WHERE u.tenant_id = ${tenantId} AND COALESCE(u.org_id, t.org_id) = ${within.scopeId}`;
    } else {
      query = sql<{ id: string }>`SELECT user_id AS id FROM directory_users
        WHERE tenant_id = ${tenantId} AND user_id = ${within.scopeId}`;
    }
    const { rows } = await query.execute(this.#db);
    return sorted(rows.map((r) => r.id));
  }
}
