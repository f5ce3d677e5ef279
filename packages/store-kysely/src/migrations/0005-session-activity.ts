import type { Kysely, Migration } from 'kysely';
import { sql } from 'kysely';

/**
 * `0005_session_activity`: rolling sessions (issue 15) — when a session was last used, the end of
 * its absolute lifetime, and the user agent and address of the login (shown by the session list
 * routes). Existing rows get `last_seen_at = created_at` and `absolute_expires_at = expires_at`
 * (their lifetime does not grow).
 */
export const sessionActivity: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    const statements = [
      sql`ALTER TABLE sessions ADD COLUMN last_seen_at timestamptz`,
      sql`ALTER TABLE sessions ADD COLUMN absolute_expires_at timestamptz`,
      sql`ALTER TABLE sessions ADD COLUMN user_agent text`,
      sql`ALTER TABLE sessions ADD COLUMN ip text`,
      sql`UPDATE sessions SET last_seen_at = created_at, absolute_expires_at = expires_at`,
      sql`ALTER TABLE sessions ALTER COLUMN last_seen_at SET NOT NULL`,
      sql`ALTER TABLE sessions ALTER COLUMN absolute_expires_at SET NOT NULL`,
    ];
    for (const s of statements) await s.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    for (const c of ['ip', 'user_agent', 'absolute_expires_at', 'last_seen_at'])
      await sql`ALTER TABLE sessions DROP COLUMN IF EXISTS ${sql.id(c)}`.execute(db);
  },
};
