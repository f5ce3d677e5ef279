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
  expiresAt: string;
}

export interface SessionStore {
  create(session: SessionRecord): Promise<void>;
  /** The session, also when expired (the caller tells expired from absent). */
  get(idHash: string): Promise<SessionRecord | undefined>;
  delete(idHash: string): Promise<boolean>;
  /** Removes sessions that expired before `now`; returns how many. */
  deleteExpired(now: Date): Promise<number>;
}
