export { AnalyticsClient } from './client/analytics-client';
export type { ExportDownload, ExportFormat, ExportParams } from './client/export';
export { serverMessage } from './client/http';
export {
  type AnalyticsClientOptions,
  type CallOptions,
  type DateRange,
  DEFAULT_BASE_URL,
  DEFAULT_TIMEOUT_MS,
  type FetchLike,
  type IterateOptions,
  type PageParams,
} from './client/options';
export type { PromptFilter } from './client/prompts';
export type { MessageFilter, SubagentFilter, ToolCallFilter } from './client/records';
export type { SessionFilter } from './client/sessions';
export type { InsightsFilter, StatsFilter } from './client/stats';
export {
  type ContentDisposition,
  formatContentDisposition,
  parseContentDisposition,
} from './content-disposition';
export {
  AnalyticsApiError,
  type AnalyticsApiErrorInit,
  type AnalyticsErrorKind,
  isAnalyticsApiError,
  type RedactedRequest,
} from './errors';
export * from './events';
export { type CollectOptions, type FetchPage, type Page, PageIterator } from './paginate';
export { type DateInput, formatDateParam, formatTags, parseTags } from './params';
export { backoffDelay, type RetryOptions, resolveRetry } from './retry';
export type * from './types';
