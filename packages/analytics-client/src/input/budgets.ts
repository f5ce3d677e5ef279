// Input schemas of the budget endpoints (spec: Budget). The spec allows the periods daily, weekly and
// monthly; the server stores anything (a `yearly` budget then counts all-time spend) and turns a
// NaN amount into 0, so the client refuses both before sending.
import { z } from 'zod';
import { required } from './common';

const budgetPeriod = z.enum(['daily', 'weekly', 'monthly'], {
  error: "must be 'daily', 'weekly' or 'monthly'",
});

/** Non-negative and finite (zod numbers refuse NaN and ±Infinity). */
const amount = z.number({ error: 'must be a finite number' }).min(0, { error: 'must be >= 0' });

/** The id of a budget: the server's integer ids. */
const budgetId = z
  .number({ error: 'must be a number' })
  .int({ error: 'must be an integer' })
  .min(0, { error: 'must be >= 0' });

const budgetShape = {
  /** Shown in lists and status. */
  name: required,
  period: budgetPeriod,
  /** Spend limit in USD for one period. Wire: `amount_usd`. */
  amountUsd: amount,
  /** Project path filter; omit/`null`/`''` for all projects. Wire: `project_path`. */
  project: z.string({ error: 'must be a string or null' }).nullish(),
  /**
   * Update only: the server overwrites `enabled` on PUT, and treats a missing value as `false`.
   * The client therefore always sends it, defaulting to `true`. (Create always enables.)
   */
  enabled: z.boolean({ error: 'must be a boolean' }).optional(),
};

/** `POST /api/budgets` body (`enabled` is not sent: the server always creates budgets enabled). */
export const budgetCreate = z.strictObject(budgetShape).transform((v) => ({
  name: v.name,
  project_path: v.project ?? '',
  period: v.period,
  amount_usd: v.amountUsd,
}));

/** `PUT /api/budgets/{id}` body: the whole budget, `enabled` included. */
export const budgetUpdate = z.strictObject(budgetShape).transform((v) => ({
  name: v.name,
  project_path: v.project ?? '',
  period: v.period,
  amount_usd: v.amountUsd,
  enabled: v.enabled ?? true,
}));

export const budgetPath = z.strictObject({ id: budgetId });

export type BudgetPeriod = z.output<typeof budgetPeriod>;
export type BudgetInput = z.input<typeof budgetCreate>;
