export { AnalyticsClient, type WithResponse } from './client/analytics-client';
export { serverMessage } from './client/attempt';
export type { ExportDownload } from './client/export';
export type {
  ClientHooks,
  ErrorHookContext,
  RequestHookContext,
  ResponseHookContext,
  RetryHookContext,
} from './client/hooks';
export {
  type AnalyticsClientOptions,
  type CallOptions,
  DEFAULT_BASE_URL,
  DEFAULT_TIMEOUT_MS,
  type FetchLike,
  type IterateOptions,
} from './client/options';
export {
  type ContentDisposition,
  formatContentDisposition,
  parseContentDisposition,
} from './content-disposition';
export {
  AnalyticsApiError,
  type AnalyticsApiErrorInit,
  type AnalyticsErrorKind,
  AnalyticsValidationError,
  isAnalyticsApiError,
  isAnalyticsValidationError,
  type RedactedRequest,
  type ValidationIssue,
} from './errors';
export * from './events';
export type { DateRange, PageParams } from './input/common';
export type { ExportFilter, ExportFormat, ExportParams } from './input/export';
export type { PromptFilter } from './input/prompts';
export type { MessageFilter, SearchOptions, SubagentFilter, ToolCallFilter } from './input/records';
export type { GitSyncParams, SessionFilter, SessionListParams } from './input/sessions';
export type { DailyStatsParams, FileHeatmapParams, InsightsFilter, StatsFilter } from './input/stats';
export {
  type CollectOptions,
  type FetchPage,
  type Page,
  PageIterator,
  type RepeatedPageError,
} from './paginate';
export { type DateInput, formatDateParam, formatTags, parseTags } from './params';
export { backoffDelay, parseRetryAfter, RETRY_STATUSES, type RetryOptions, resolveRetry } from './retry';
export type * from './types';
