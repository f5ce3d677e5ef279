/** Fetching the report's data through the client (one place for the terminal and the HTML report). */
import type { AnalyticsClient, CallOptions, ModelStat } from '@agentgov/analytics-client';
import type { ReportData } from './render';

/** Everything both reports show; the HTML report adds the model mix. */
export interface FullReportData extends ReportData {
  models: ModelStat[];
}

export async function loadReportData(
  client: AnalyticsClient,
  days: number,
  call: CallOptions = {},
): Promise<FullReportData> {
  const [stats, daily, tools, budgets, models] = await Promise.all([
    client.getStats({}, call),
    client.getDailyStats({ days }, call),
    client.getToolStats(call),
    client.getBudgetStatus(call),
    client.getModelStats(call),
  ]);
  return { stats, daily, tools, budgets, models };
}
