/**
 * Sessions: 256-bit random ids (base64url), stored only as their SHA-256 hash in a SessionStore
 * (memory, SQL, or Redis). The cookie is `session=<id>; HttpOnly; Secure; SameSite=Strict;
 * Max-Age=3600; Path=/` (the spec's), or `__Host-session=<id>; …` when the server is configured as
 * served over HTTPS (`secureCookies`).
 *
 * Rolling expiry: each authenticated use moves the end of the session to `now + ttl`, never past
 * `createdAt + absoluteTtl`. To avoid a write per request, a use is recorded only once more than
 * `refreshAfter` of the window has passed since the last recorded one; the response then carries
 * the cookie again with the new Max-Age. Sessions are never cached in-process: a revoked session is
 * refused on its next request by every server process.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  type Clock,
  type Logger,
  nowMs,
  type Principal,
  type SessionRecord,
  type SessionStore,
} from '@agentgov/core';

export const SESSION_COOKIE = 'session';
/** The cookie's name when `secureCookies` is on (RFC 6265bis `__Host-` prefix: Secure, Path=/, no Domain). */
export const SECURE_SESSION_COOKIE = '__Host-session';
export const DEFAULT_SESSION_TTL_SECONDS = 3600;
export const DEFAULT_SESSION_ABSOLUTE_TTL_SECONDS = 12 * 3600;

export interface SessionOptions {
  /** Idle window in seconds: a session unused for this long expires (default 3600, the spec's Max-Age). */
  ttlSeconds?: number;
  /** Absolute lifetime in seconds, however often the session is used (default 12 h). */
  absoluteTtlSeconds?: number;
  /**
   * Fraction of the idle window that must pass since the last recorded use before a use is
   * written (and the cookie re-issued) again (default 0.1: every 6 minutes of use for 1 h).
   */
  refreshAfterFraction?: number;
  /**
   * The server is reached over HTTPS only: the cookie is named `__Host-session` (a subdomain or a
   * plain-HTTP page cannot set or shadow it). Default false: the spec's `session`.
   */
  secureCookies?: boolean;
  /**
   * How often expired sessions are deleted from the store, in ms (default 10 minutes; 0 turns the
   * timer off, e.g. when the store's own TTL does it). A session is deleted a day after it expired:
   * until then a request with it is answered `session_expired` rather than `no_session`.
   */
  sweepIntervalMs?: number;
}

export function newSessionId(): string {
  return randomBytes(32).toString('base64url');
}

export function hashSessionId(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}

/** The spec's session cookie (`session=…`), as sent by a server that is not configured for HTTPS. */
export function sessionCookie(id: string, maxAgeSeconds: number, name = SESSION_COOKIE): string {
  return `${name}=${id}; HttpOnly; Secure; SameSite=Strict; Max-Age=${maxAgeSeconds}; Path=/`;
}

/**
 * The public id of a session in the session list routes: derived from the stored hash, so it
 * names a session without being its secret or its store key.
 */
export function publicSessionId(idHash: string): string {
  return createHash('sha256').update(`agentgov-session-id:${idHash}`).digest('base64url').slice(0, 32);
}

export type SessionLookup =
  | { kind: 'ok'; principal: Principal; record: SessionRecord }
  | { kind: 'expired' }
  | { kind: 'unknown' };

/** What a session list shows: never the session id or its hash. */
export interface SessionView {
  id: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  absoluteExpiresAt: string;
  userAgent: string | null;
  ip: string | null;
  /** The session of the request that asked. */
  current: boolean;
}

const EXPIRED_READABLE_MS = 24 * 3600 * 1000;

const SESSION_ID_RE = /^[A-Za-z0-9_-]{43}$/;

export class SessionManager {
  readonly #store: SessionStore;
  readonly #clock: Clock;
  readonly ttlSeconds: number;
  readonly absoluteTtlSeconds: number;
  readonly #refreshAfterMs: number;
  readonly #sweepIntervalMs: number;
  /** `session`, or `__Host-session` with `secureCookies`. */
  readonly cookieName: string;
  /** Cookies of sessions extended while authenticating a request, added to its response. */
  readonly #renewed = new WeakMap<Request, string>();
  #sweeper: NodeJS.Timeout | undefined;

  constructor(store: SessionStore, clock: Clock, options: SessionOptions | number = {}) {
    const o: SessionOptions = typeof options === 'number' ? { ttlSeconds: options } : options;
    this.#store = store;
    this.#clock = clock;
    this.ttlSeconds = positive(o.ttlSeconds, DEFAULT_SESSION_TTL_SECONDS, 'ttlSeconds');
    this.absoluteTtlSeconds = Math.max(
      this.ttlSeconds,
      positive(o.absoluteTtlSeconds, DEFAULT_SESSION_ABSOLUTE_TTL_SECONDS, 'absoluteTtlSeconds'),
    );
    const fraction = o.refreshAfterFraction ?? 0.1;
    if (!(fraction >= 0 && fraction < 1)) throw new Error('sessions.refreshAfterFraction must be in [0, 1)');
    this.#refreshAfterMs = fraction * this.ttlSeconds * 1000;
    this.#sweepIntervalMs = o.sweepIntervalMs ?? 600_000;
    this.cookieName = o.secureCookies ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
  }

  /** The Set-Cookie value of a session id (empty id and 0: clears it). */
  cookie(id: string, maxAgeSeconds: number): string {
    return sessionCookie(id, maxAgeSeconds, this.cookieName);
  }

  async create(
    p: Omit<Principal, 'via'>,
    client: { userAgent?: string | null; ip?: string | null } = {},
  ): Promise<{ id: string; record: SessionRecord }> {
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
      lastSeenAt: now.toISOString(),
      absoluteExpiresAt: new Date(now.getTime() + this.absoluteTtlSeconds * 1000).toISOString(),
      userAgent: client.userAgent ? client.userAgent.slice(0, 512) : null,
      ip: client.ip ?? null,
    };
    await this.#store.create(record);
    return { id, record };
  }

  async end(id: string): Promise<void> {
    if (SESSION_ID_RE.test(id)) await this.#store.delete(hashSessionId(id));
  }

  /**
   * The session of a cookie value. A live session whose last recorded use is older than the
   * refresh threshold is extended (one store write) and, when `request` is given, its cookie is
   * queued for the response (`withRenewedCookie`).
   */
  async lookup(id: string, request?: Request): Promise<SessionLookup> {
    if (!SESSION_ID_RE.test(id)) return { kind: 'unknown' };
    const idHash = hashSessionId(id);
    let record = await this.#store.get(idHash);
    if (!record) return { kind: 'unknown' };
    const expiresAt = Date.parse(record.expiresAt);
    const now = nowMs(this.#clock);
    if (expiresAt <= now) {
      // Answered `session_expired` every time, not once: the record stays readable for a day
      // after it expired (the Redis store keeps it as long), then it is removed.
      if (now - expiresAt > EXPIRED_READABLE_MS) await this.#store.delete(idHash).catch(() => false);
      return { kind: 'expired' };
    }
    if (now - Date.parse(record.lastSeenAt) > this.#refreshAfterMs) {
      const next = Math.min(now + this.ttlSeconds * 1000, Date.parse(record.absoluteExpiresAt));
      if (next > expiresAt) {
        const lastSeenAt = new Date(now).toISOString();
        const nextIso = new Date(next).toISOString();
        // A session revoked meanwhile is not recreated (touch answers false): it is refused.
        if (!(await this.#store.touch(idHash, lastSeenAt, nextIso))) return { kind: 'unknown' };
        record = { ...record, lastSeenAt, expiresAt: nextIso };
        if (request) this.#renewed.set(request, this.cookie(id, Math.ceil((next - now) / 1000)));
      }
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

  /**
   * `response` with the cookie of a session extended while its request was authenticated, unless
   * the handler set the session cookie itself (login, logout).
   */
  withRenewedCookie(request: Request, response: Response): Response {
    const cookie = this.#renewed.get(request);
    if (cookie === undefined) return response;
    this.#renewed.delete(request);
    const prefix = `${this.cookieName}=`;
    if (response.headers.getSetCookie().some((c) => c.startsWith(prefix))) return response;
    try {
      response.headers.append('set-cookie', cookie);
      return response;
    } catch {
      // Immutable headers (Response.redirect): copy.
      const headers = new Headers(response.headers);
      headers.append('set-cookie', cookie);
      return new Response(response.body, {
        status: response.status,
        statusText: response.statusText,
        headers,
      });
    }
  }

  /** The sessions of a user in a tenant, newest first; `currentIdHash` marks the caller's own. */
  async list(tenantId: string, userId: string, currentIdHash?: string): Promise<SessionView[]> {
    const now = nowMs(this.#clock);
    const records = await this.#store.listByUser(tenantId, userId);
    return records
      .filter((r) => Date.parse(r.expiresAt) > now)
      .map((r) => ({
        id: publicSessionId(r.idHash),
        createdAt: r.createdAt,
        lastSeenAt: r.lastSeenAt,
        expiresAt: r.expiresAt,
        absoluteExpiresAt: r.absoluteExpiresAt,
        userAgent: r.userAgent,
        ip: r.ip,
        current: r.idHash === currentIdHash,
      }));
  }

  /** Ends the session with public id `id` if it belongs to the user in the tenant; false otherwise. */
  async revoke(tenantId: string, userId: string, id: string): Promise<boolean> {
    const records = await this.#store.listByUser(tenantId, userId);
    const target = records.find((r) => publicSessionId(r.idHash) === id);
    return target ? this.#store.delete(target.idHash) : false;
  }

  /** Ends every session of the user in the tenant; how many there were. */
  async revokeAll(tenantId: string, userId: string): Promise<number> {
    let n = 0;
    for (const r of await this.#store.listByUser(tenantId, userId)) {
      if (await this.#store.delete(r.idHash)) n++;
    }
    return n;
  }

  /** Deletes sessions that expired more than a day ago (see `sweepIntervalMs`); how many. */
  sweep(): Promise<number> {
    return this.#store.deleteExpired(new Date(nowMs(this.#clock) - EXPIRED_READABLE_MS));
  }

  /** Starts the expired-session timer (unref'd; idempotent). */
  startSweeper(logger?: Logger): void {
    if (this.#sweeper || this.#sweepIntervalMs <= 0) return;
    this.#sweeper = setInterval(() => {
      this.sweep().catch((error: unknown) => {
        logger?.warn('expired sessions not deleted', { error: String(error) });
      });
    }, this.#sweepIntervalMs);
    this.#sweeper.unref();
  }

  stopSweeper(): void {
    if (this.#sweeper) clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new Error(`sessions.${name} must be a positive number`);
  return value;
}

/** The session id hash of a request's cookie, when it has a well-formed one. */
export function sessionIdHashOf(cookieValue: string | undefined): string | undefined {
  return cookieValue !== undefined && SESSION_ID_RE.test(cookieValue)
    ? hashSessionId(cookieValue)
    : undefined;
}
