/**
 * Daily briefings on a schedule: once per user and local calendar day, at or after a configured
 * local time in the user's time zone (`timeZoneOf`, default UTC), the briefing is built by
 * `BriefingService.generate` and stored. The run of a day is taken in a ScheduledRunStore
 * (job `daily-briefing`, key `<userId>:<local date>`) before it is built, so
 * - two processes sharing the stores never build the same briefing twice;
 * - a process that was down at the configured time catches up once when it is back (the first
 *   tick after the time builds that day's briefing; days missed entirely are not built afterwards);
 * - a failed build gives the run back, and the next tick tries again.
 * A run this process has seen taken (by itself or another) is remembered, so later ticks of the
 * same day do not ask the store again.
 */
import { type Briefing, type Clock, type Logger, type ScheduledRunStore, systemClock } from '@agentgov/core';
import type { BriefingService } from '../briefings';
import { isTimeZone, localTime } from '../time-zone';

export const DAILY_BRIEFING_JOB = 'daily-briefing';

export interface BriefingScheduleOptions {
  briefings: Pick<BriefingService, 'generate'>;
  runs: ScheduledRunStore;
  /** Tenants to serve. */
  tenants: () => Promise<string[]>;
  /** Users of a tenant who get a daily briefing. */
  users: (tenantId: string) => Promise<string[]>;
  /** IANA time zone of a user (default, or when unknown: UTC). */
  timeZoneOf?: (tenantId: string, userId: string) => Promise<string | undefined>;
  /** Local time of day the briefing is built, `HH:MM` (default `07:00`). */
  at?: string;
  channel?: Briefing['deliveryChannel'];
  /** Who takes the runs (this process's instance id). */
  owner: string;
  clock?: Clock;
  logger?: Logger;
}

/** `HH:MM` (00:00–23:59) → minutes after midnight; undefined when malformed. */
export function parseLocalTime(value: string): number | undefined {
  const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(value);
  return m ? Number(m[1]) * 60 + Number(m[2]) : undefined;
}

export class BriefingSchedule {
  readonly #o: BriefingScheduleOptions;
  readonly #clock: Clock;
  readonly #atMinute: number;
  /** Runs known to be taken (`<tenant>\n<key>`); forgotten wholesale past 100 000 entries. */
  readonly #taken = new Set<string>();
  constructor(options: BriefingScheduleOptions) {
    const at = parseLocalTime(options.at ?? '07:00');
    if (at === undefined)
      throw new RangeError(`briefing time must be HH:MM (00:00 to 23:59), got '${options.at}'`);
    this.#o = options;
    this.#atMinute = at;
    this.#clock = options.clock ?? systemClock;
  }

  /** Builds the briefings that are due now and not yet built; resolves with the ones built. */
  async tick(signal?: AbortSignal): Promise<Briefing[]> {
    const built: Briefing[] = [];
    for (const tenantId of await this.#o.tenants()) {
      for (const userId of await this.#o.users(tenantId)) {
        if (signal?.aborted) return built;
        const b = await this.#runFor(tenantId, userId).catch((error: unknown) => {
          this.#o.logger?.error('scheduled briefing failed', { tenantId, userId, error: String(error) });
          return undefined;
        });
        if (b) built.push(b);
      }
    }
    return built;
  }

  async #runFor(tenantId: string, userId: string): Promise<Briefing | undefined> {
    const zone = await this.#o.timeZoneOf?.(tenantId, userId);
    const tz = zone && isTimeZone(zone) ? zone : 'UTC';
    const now = this.#clock.now();
    const local = localTime(now.getTime(), tz);
    if (local.hour * 60 + local.minute < this.#atMinute) return undefined;
    const key = `${userId}:${local.date}`;
    const seen = `${tenantId}\n${key}`;
    if (this.#taken.has(seen)) return undefined;
    if (this.#taken.size >= 100_000) this.#taken.clear();
    const claimed = await this.#o.runs.claim({
      tenantId,
      job: DAILY_BRIEFING_JOB,
      key,
      owner: this.#o.owner,
      claimedAt: now.toISOString(),
    });
    this.#taken.add(seen);
    if (!claimed) return undefined;
    try {
      return await this.#o.briefings.generate(tenantId, userId, { channel: this.#o.channel ?? 'web_ui' });
    } catch (error) {
      this.#taken.delete(seen);
      await this.#o.runs.release(tenantId, DAILY_BRIEFING_JOB, key);
      throw error;
    }
  }
}
