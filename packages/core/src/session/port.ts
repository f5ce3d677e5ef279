import type { Role } from '../vocabulary';

export interface SessionRecord {
  /** SHA-256 (hex) of the session id: the id itself is never stored. */
  idHash: string;
  tenantId: string;
  userId: string;
  email: string;
  roles: Role[];
  orgUnit: string | null;
  team: string | null;
  createdAt: string;
  /** End of the current (rolling) window; moved forward by `touch`, never past `absoluteExpiresAt`. */
  expiresAt: string;
  /** The last authenticated use the store was told about (`touch`); `createdAt` at first. */
  lastSeenAt: string;
  /** The session ends here however often it is used (absolute lifetime). */
  absoluteExpiresAt: string;
  /** The `User-Agent` of the login, when recorded (at most 512 characters). */
  userAgent: string | null;
  /** The client address of the login, when recorded. */
  ip: string | null;
}

export interface SessionStore {
  create(session: SessionRecord): Promise<void>;
  /** The session, also when expired (the caller tells expired from absent). */
  get(idHash: string): Promise<SessionRecord | undefined>;
  delete(idHash: string): Promise<boolean>;
  /** Removes sessions that expired before `now`; returns how many. */
  deleteExpired(now: Date): Promise<number>;
  /**
   * Records a use of the session: sets `lastSeenAt` and `expiresAt` (the caller keeps it within
   * `absoluteExpiresAt`). Never recreates a deleted session: false when it is absent.
   */
  touch(idHash: string, lastSeenAt: string, expiresAt: string): Promise<boolean>;
  /** The sessions of one user in one tenant, expired ones included, newest `createdAt` first. */
  listByUser(tenantId: string, userId: string): Promise<SessionRecord[]>;
}
