// Budgets (spec: Budget): list, create, replace, delete, and their current status.
import { checkInteger } from '../params';
import type * as T from '../types';
import { budget, budgetList, budgetStatusList, budgetToWire } from '../wire/budgets';
import { statusReply } from '../wire/common';
import { ClientCore } from './core';
import type { CallOptions } from './options';
import { seg } from './query';

/** The path of one budget; the id must be a non-negative integer. */
const budgetPath = (id: number) => `/api/budgets/${seg(checkInteger('id', id, 0))}`;

export abstract class BudgetsApi extends ClientCore {
  async listBudgets(options?: CallOptions): Promise<T.Budget[]> {
    return this.call({ method: 'GET', path: '/api/budgets' }, budgetList, options);
  }

  /** POST /api/budgets (201). Not retried. The server always creates budgets enabled. */
  async createBudget(input: T.BudgetInput, options?: CallOptions): Promise<T.Budget> {
    return this.call(
      { method: 'POST', path: '/api/budgets', body: budgetToWire(input, false) },
      budget,
      options,
    );
  }

  /** PUT /api/budgets/{id}: replaces the budget. `enabled` defaults to `true` (see {@link T.BudgetInput}). */
  async updateBudget(id: number, input: T.BudgetInput, options?: CallOptions): Promise<T.Budget> {
    return this.call(
      { method: 'PUT', path: budgetPath(id), body: budgetToWire(input, true) },
      budget,
      options,
    );
  }

  /** DELETE /api/budgets/{id}. Succeeds for unknown ids too (server behaviour). */
  async deleteBudget(id: number, options?: CallOptions): Promise<void> {
    await this.call({ method: 'DELETE', path: budgetPath(id) }, statusReply, options);
  }

  /** GET /api/budgets/status: enabled budgets with current spend, percentage (0..100+) and status. */
  async getBudgetStatus(options?: CallOptions): Promise<T.BudgetStatus[]> {
    return this.call({ method: 'GET', path: '/api/budgets/status' }, budgetStatusList, options);
  }
}
