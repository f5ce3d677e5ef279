import { ok, type Result } from 'neverthrow';
import type { Clock } from '../clock';
import { systemClock } from '../clock';
import type { GovernanceError } from '../errors';
import { createUlidFactory } from '../ids';
import type { AuditSink } from '../ports/audit-sink';
import { type AuditEntry, type AuditEntryInput, AuditEntrySchema } from '../resources';
import { parseWith } from '../result';
import { copy } from './util';

/** An AuditSink that keeps validated entries in memory (tests, demos). No hash chain. */
export class InMemoryAuditSink implements AuditSink {
  readonly entries: AuditEntry[] = [];
  readonly #clock: Clock;
  readonly #ulid: () => string;
  constructor(clock: Clock = systemClock) {
    this.#clock = clock;
    this.#ulid = createUlidFactory(clock);
  }
  async append(input: AuditEntryInput): Promise<Result<AuditEntry, GovernanceError>> {
    const parsed = parseWith(AuditEntrySchema, {
      ...input,
      id: this.#ulid(),
      timestamp: input.timestamp ?? this.#clock.now().toISOString(),
    });
    if (parsed.isErr()) return parsed;
    this.entries.push(copy(parsed.value));
    return ok(copy(parsed.value));
  }
}
