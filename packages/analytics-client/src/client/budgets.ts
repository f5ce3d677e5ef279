// Budgets (spec: Budget): list, create, replace, delete, and their current status.
import { type BudgetInput, budgetCreate, budgetPath, budgetUpdate } from '../input/budgets';
import type * as T from '../types';
import { budget, budgetList, budgetStatusList } from '../wire/budgets';
import { statusReply } from '../wire/common';
import { ClientCore } from './core';
import type { CallOptions } from './options';
import { seg } from './query';

export abstract class BudgetsApi extends ClientCore {
  async listBudgets(options?: CallOptions): Promise<T.Budget[]> {
    return this.call({ method: 'GET', path: '/api/budgets' }, budgetList, options);
  }

  /**
   * POST /api/budgets (201). `period` must be daily, weekly or monthly and `amountUsd` a finite
   * number >= 0 (else nothing is sent). Not retried unless `retry.nonIdempotent`. The server always
   * creates budgets enabled.
   */
  async createBudget(input: BudgetInput, options?: CallOptions): Promise<T.Budget> {
    const body = this.input(budgetCreate, input, 'POST /api/budgets');
    return this.call({ method: 'POST', path: '/api/budgets', body }, budget, options);
  }

  /** PUT /api/budgets/{id}: replaces the budget. `enabled` defaults to `true` (see {@link BudgetInput}). */
  async updateBudget(id: number, input: BudgetInput, options?: CallOptions): Promise<T.Budget> {
    this.input(budgetPath, { id }, 'PUT /api/budgets/{id}');
    const body = this.input(budgetUpdate, input, 'PUT /api/budgets/{id}');
    return this.call({ method: 'PUT', path: `/api/budgets/${seg(id)}`, body }, budget, options);
  }

  /** DELETE /api/budgets/{id}. Succeeds for unknown ids too (server behaviour). */
  async deleteBudget(id: number, options?: CallOptions): Promise<void> {
    this.input(budgetPath, { id }, 'DELETE /api/budgets/{id}');
    await this.call({ method: 'DELETE', path: `/api/budgets/${seg(id)}` }, statusReply, options);
  }

  /** GET /api/budgets/status: enabled budgets with current spend, percentage (0..100+) and status. */
  async getBudgetStatus(options?: CallOptions): Promise<T.BudgetStatus[]> {
    return this.call({ method: 'GET', path: '/api/budgets/status' }, budgetStatusList, options);
  }
}
