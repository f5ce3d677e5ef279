export {
  AnalyticsClient,
  type AnalyticsClientOptions,
  type CallOptions,
  type DateRange,
  DEFAULT_BASE_URL,
  DEFAULT_TIMEOUT_MS,
  type ExportDownload,
  type ExportFormat,
  type ExportParams,
  type FetchLike,
  type InsightsFilter,
  type IterateOptions,
  type MessageFilter,
  type PageParams,
  type PromptFilter,
  type SessionFilter,
  type StatsFilter,
  type SubagentFilter,
  serverMessage,
  type ToolCallFilter,
} from './client';
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
