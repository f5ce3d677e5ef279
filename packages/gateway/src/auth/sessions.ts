/**
 * Sessions: 256-bit random ids (base64url), stored only as their SHA-256 hash in a SessionStore
 * (memory, SQL, or Redis). The cookie is `session=<id>; HttpOnly; Secure; SameSite=Strict; Max-Age=3600; Path=/`.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Clock, Principal, SessionRecord, SessionStore } from '@agentgov/core';

export const SESSION_COOKIE = 'session';
export const DEFAULT_SESSION_TTL_SECONDS = 3600;

export function newSessionId(): string {
  return randomBytes(32).toString('base64url');
}

export function hashSessionId(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}

export function sessionCookie(id: string, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE}=${id}; HttpOnly; Secure; SameSite=Strict; Max-Age=${maxAgeSeconds}; Path=/`;
}

export type SessionLookup =
  | { kind: 'ok'; principal: Principal; record: SessionRecord }
  | { kind: 'expired' }
  | { kind: 'unknown' };

const EXPIRED_READABLE_MS = 24 * 3600 * 1000;

const SESSION_ID_RE = /^[A-Za-z0-9_-]{43}$/;

export class SessionManager {
  readonly #store: SessionStore;
  readonly #clock: Clock;
  readonly ttlSeconds: number;
  constructor(store: SessionStore, clock: Clock, ttlSeconds = DEFAULT_SESSION_TTL_SECONDS) {
    this.#store = store;
    this.#clock = clock;
    this.ttlSeconds = ttlSeconds;
  }

  async create(p: Omit<Principal, 'via'>): Promise<{ id: string; record: SessionRecord }> {
    const id = newSessionId();
    const now = this.#clock.now();
    const record: SessionRecord = {
      idHash: hashSessionId(id),
      tenantId: p.tenantId,
      userId: p.userId,
      email: p.email,
      roles: [...p.roles],
      orgUnit: p.orgUnit,
      team: p.team,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + this.ttlSeconds * 1000).toISOString(),
    };
    await this.#store.create(record);
    return { id, record };
  }

  async end(id: string): Promise<void> {
    if (SESSION_ID_RE.test(id)) await this.#store.delete(hashSessionId(id));
  }

  async lookup(id: string): Promise<SessionLookup> {
    if (!SESSION_ID_RE.test(id)) return { kind: 'unknown' };
    const idHash = hashSessionId(id);
    const record = await this.#store.get(idHash);
    if (!record) return { kind: 'unknown' };
    const expiresAt = Date.parse(record.expiresAt);
    const now = this.#clock.now().getTime();
    if (expiresAt <= now) {
      // Answered `session_expired` every time, not once: the record stays readable for a day
      // after it expired (the Redis store keeps it as long), then it is removed.
      if (now - expiresAt > EXPIRED_READABLE_MS) await this.#store.delete(idHash).catch(() => false);
      return { kind: 'expired' };
    }
    return {
      kind: 'ok',
      record,
      principal: {
        userId: record.userId,
        email: record.email,
        roles: [...record.roles],
        tenantId: record.tenantId,
        orgUnit: record.orgUnit,
        team: record.team,
        via: 'session',
      },
    };
  }
}
