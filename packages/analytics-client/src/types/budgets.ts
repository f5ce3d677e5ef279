// Budgets and their status (spec: Budget).
import type { Extra } from './common';

export type BudgetPeriod = 'daily' | 'weekly' | 'monthly';

export interface Budget {
  id: number;
  name: string;
  period: BudgetPeriod | (string & {});
  /** Wire: `amount_usd`. */
  amountUsd: number;
  /** Project path the budget is limited to; `null` = all projects (wire: `project_path: ""`). */
  project: string | null;
  enabled: boolean;
  extra: Extra;
}

export interface BudgetInput {
  name: string;
  period: BudgetPeriod;
  amountUsd: number;
  /** Project path filter; omit/`null`/`''` for all projects. */
  project?: string | null;
  /**
   * Update only: the server overwrites `enabled` on PUT, and treats a missing value as `false`.
   * The client therefore always sends it, defaulting to `true`. (Create always enables.)
   */
  enabled?: boolean;
}

export type BudgetState = 'ok' | 'warning' | 'exceeded';

export interface BudgetStatus {
  id: number;
  name: string;
  period: BudgetPeriod | (string & {});
  amountUsd: number;
  project: string | null;
  currentSpend: number;
  /** Percent used, 0..100+ (not a fraction). 0 when the amount is 0. */
  percentage: number;
  /** Server rule: `warning` from 80 %, `exceeded` from 100 %. */
  status: BudgetState | (string & {});
  extra: Extra;
}
