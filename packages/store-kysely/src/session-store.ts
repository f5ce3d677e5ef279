import type { SessionRecord, SessionStore } from '@agentgov/core';
import { type Insertable, type Kysely, sql } from 'kysely';
import type { Database, SessionsTable, StoredRow } from './schema';
import { isoFromText, isoText, jsonb } from './sql-util';

const SELECT_COLUMNS = sql`id_hash, tenant_id, user_id, email, roles, org_unit, team, user_agent, ip,
  ${isoText('created_at')} AS created_at_text, ${isoText('expires_at')} AS expires_at_text,
  ${isoText('last_seen_at')} AS last_seen_at_text,
  ${isoText('absolute_expires_at')} AS absolute_expires_at_text`;

const toSession = (r: StoredRow<SessionsTable>): SessionRecord => ({
  idHash: r.id_hash,
  tenantId: r.tenant_id,
  userId: r.user_id,
  email: r.email,
  roles: r.roles,
  orgUnit: r.org_unit,
  team: r.team,
  createdAt: isoFromText(r.created_at_text),
  expiresAt: isoFromText(r.expires_at_text),
  lastSeenAt: isoFromText(r.last_seen_at_text),
  absoluteExpiresAt: isoFromText(r.absolute_expires_at_text),
  userAgent: r.user_agent,
  ip: r.ip,
});

const sessionRow = (s: SessionRecord): Insertable<SessionsTable> => ({
  id_hash: s.idHash,
  tenant_id: s.tenantId,
  user_id: s.userId,
  email: s.email,
  roles: jsonb(s.roles),
  org_unit: s.orgUnit,
  team: s.team,
  created_at: s.createdAt,
  expires_at: s.expiresAt,
  last_seen_at: s.lastSeenAt,
  absolute_expires_at: s.absoluteExpiresAt,
  user_agent: s.userAgent,
  ip: s.ip,
});

/**
 * `SessionStore` on PostgreSQL / PGlite: one row per session, keyed by the id's SHA-256. Expired
 * rows are removed by `deleteExpired` (the gateway calls it on a timer), using the expiry index.
 */
export class KyselySessionStore implements SessionStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async create(s: SessionRecord): Promise<void> {
    await this.#db.insertInto('sessions').values(sessionRow(s)).execute();
  }

  async get(idHash: string): Promise<SessionRecord | undefined> {
    const { rows } = await sql<StoredRow<SessionsTable>>`SELECT ${SELECT_COLUMNS} FROM sessions
      WHERE id_hash = ${idHash}`.execute(this.#db);
    const row = rows[0];
    return row && toSession(row);
  }

  async delete(idHash: string): Promise<boolean> {
    const result = await this.#db.deleteFrom('sessions').where('id_hash', '=', idHash).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  async deleteExpired(now: Date): Promise<number> {
    const result = await this.#db
      .deleteFrom('sessions')
      .where('expires_at', '<', now.toISOString())
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async touch(idHash: string, lastSeenAt: string, expiresAt: string): Promise<boolean> {
    const result = await this.#db
      .updateTable('sessions')
      .set({ last_seen_at: lastSeenAt, expires_at: expiresAt })
      .where('id_hash', '=', idHash)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async listByUser(tenantId: string, userId: string): Promise<SessionRecord[]> {
    const { rows } = await sql<StoredRow<SessionsTable>>`SELECT ${SELECT_COLUMNS} FROM sessions
      WHERE tenant_id = ${tenantId} AND user_id = ${userId}
      ORDER BY created_at DESC, id_hash`.execute(this.#db);
    return rows.map(toSession);
  }
}
