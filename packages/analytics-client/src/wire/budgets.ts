// Wire mapping of budgets (spec: Budget). The server's shape differs from the spec's: `amount_usd`
// and `project_path` instead of `amount` and `project`, an `enabled` flag, no `warning_threshold`.
import { z } from 'zod';
import type * as T from '../types';
import { bool, decoder, extraOf, n, num, nz, optStr, s, text, wrappedList } from './primitives';

/** The budget's own columns, which the budget endpoints and `/api/budgets/status` both send. */
const budgetRow = { id: z.number(), name: text, project_path: optStr, period: text, amount_usd: num };

/** The leading fields `Budget` and `BudgetStatus` share, in their order. */
function mapBudgetRow(w: z.infer<z.ZodObject<typeof budgetRow>>) {
  return {
    id: w.id,
    name: s(w.name),
    period: s(w.period),
    amountUsd: n(w.amount_usd),
    project: nz(w.project_path),
  };
}

const wireBudget = z.object({ ...budgetRow, enabled: bool }).loose();
function mapBudget(w: z.infer<typeof wireBudget>): T.Budget {
  return {
    ...mapBudgetRow(w),
    enabled: w.enabled ?? false,
    extra: extraOf(w, wireBudget),
  };
}
/** `POST /api/budgets` and `PUT /api/budgets/{id}`. */
export const budget = decoder(wireBudget, mapBudget);
export const budgetList = wrappedList('budgets', wireBudget, mapBudget);

const wireBudgetStatus = z
  .object({ ...budgetRow, current_spend: num, percentage: num, status: text })
  .loose();
export const budgetStatusList = wrappedList(
  'budgets',
  wireBudgetStatus,
  (b): T.BudgetStatus => ({
    ...mapBudgetRow(b),
    currentSpend: n(b.current_spend),
    percentage: n(b.percentage),
    status: s(b.status),
    extra: extraOf(b, wireBudgetStatus),
  }),
);
