import type { Role, SessionRecord, SessionStore } from '@agentgov/core';
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema';
import { affected, isoFromText, isoText, jsonb, ts } from './sql-util';

interface SessionRow {
  id_hash: string;
  tenant_id: string;
  user_id: string;
  email: string;
  roles: Role[];
  org_unit: string | null;
  team: string | null;
  created: string;
  expires: string;
}

const SELECT_COLUMNS = sql`id_hash, tenant_id, user_id, email, roles, org_unit, team,
  ${isoText('created_at')} AS created, ${isoText('expires_at')} AS expires`;

const toSession = (r: SessionRow): SessionRecord => ({
  idHash: r.id_hash,
  tenantId: r.tenant_id,
  userId: r.user_id,
  email: r.email,
  roles: r.roles,
  orgUnit: r.org_unit,
  team: r.team,
  createdAt: isoFromText(r.created),
  expiresAt: isoFromText(r.expires),
});

/** `SessionStore` on PostgreSQL / PGlite: one row per session, keyed by the id's SHA-256. */
export class KyselySessionStore implements SessionStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async create(s: SessionRecord): Promise<void> {
    await sql`INSERT INTO sessions (id_hash, tenant_id, user_id, email, roles, org_unit, team, created_at, expires_at)
      VALUES (${s.idHash}, ${s.tenantId}, ${s.userId}, ${s.email}, ${jsonb(s.roles)}, ${s.orgUnit}, ${s.team},
        ${ts(s.createdAt)}, ${ts(s.expiresAt)})`.execute(this.#db);
  }

  async get(idHash: string): Promise<SessionRecord | undefined> {
    const { rows } = await sql<SessionRow>`SELECT ${SELECT_COLUMNS} FROM sessions
      WHERE id_hash = ${idHash}`.execute(this.#db);
    const row = rows[0];
    return row && toSession(row);
  }

  async delete(idHash: string): Promise<boolean> {
    return affected(await sql`DELETE FROM sessions WHERE id_hash = ${idHash}`.execute(this.#db)) > 0;
  }

  async deleteExpired(now: Date): Promise<number> {
    return affected(
      await sql`DELETE FROM sessions WHERE expires_at < ${ts(now.toISOString())}`.execute(this.#db),
    );
  }
}
