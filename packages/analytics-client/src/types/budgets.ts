// Budgets and their status (spec: Budget).
import type { BudgetPeriod } from '../input/budgets';
import type { Extra } from './common';

/** Inferred from the input schemas (`src/input/budgets.ts`), which validate them before sending. */
export type { BudgetInput, BudgetPeriod } from '../input/budgets';

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
