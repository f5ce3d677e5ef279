/**
 * Round limits (spec: rule 7 and the Exchange outcome table). The limit of an exchange is fixed
 * when it starts — the smallest of the decision's `max_rounds`, the deployment's limits (one number
 * or one per exchange type) and both sides' `maxRoundsAccepted` — and never changes afterwards.
 */
import { type ExchangeType, INTERCHANGE_DEFAULT_MAX_ROUNDS } from '@agentgov/core';

/** One number for all exchange types, or one per type (types not listed use the default). */
export type RoundLimits = number | Partial<Record<ExchangeType, number>>;

/** The spec's example policy: information_query 3, meeting_scheduling 2, commitment_request 1. */
export const EXAMPLE_ROUND_LIMITS: Readonly<Record<ExchangeType, number>> = {
  information_query: 3,
  meeting_scheduling: 2,
  commitment_request: 1,
};

export function roundLimitFor(limits: RoundLimits | undefined, type: ExchangeType): number | undefined {
  if (limits === undefined) return undefined;
  return typeof limits === 'number' ? limits : limits[type];
}

/** The smallest positive integer limit given, or INTERCHANGE_DEFAULT_MAX_ROUNDS when none is. */
export function effectiveMaxRounds(...limits: (number | undefined)[]): number {
  const given = limits.filter((l): l is number => typeof l === 'number' && Number.isFinite(l));
  if (given.length === 0) return INTERCHANGE_DEFAULT_MAX_ROUNDS;
  return Math.max(1, Math.floor(Math.min(...given)));
}
