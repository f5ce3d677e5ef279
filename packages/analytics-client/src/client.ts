import type { z } from 'zod';
import { parseContentDisposition } from './content-disposition';
import { AnalyticsApiError, type RedactedRequest, redactRequest } from './errors';
import { EventStream, type EventStreamOptions } from './events';
import { PageIterator } from './paginate';
import {
  buildQuery,
  checkInteger,
  type DateInput,
  formatDateParam,
  formatTags,
  type QueryValue,
} from './params';
import { backoffDelay, defaultSleep, IDEMPOTENT_METHODS, type RetryOptions, resolveRetry } from './retry';
import type * as T from './types';
import * as W from './wire';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:3000';
export const DEFAULT_TIMEOUT_MS = 30_000;

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface AnalyticsClientOptions {
  /** Default `http://127.0.0.1:3000`. A path prefix (reverse proxy) is kept. */
  baseUrl?: string | URL;
  /** Injected `fetch` (tests, proxies, custom agents). Default: `globalThis.fetch`. */
  fetch?: FetchLike;
  /** Extra headers on every request (e.g. a proxy's `Authorization`); never copied into errors. */
  headers?: Record<string, string>;
  /** Per-attempt timeout until the response (and, for JSON, its body) arrives. Default 30 s; 0 disables. */
  timeoutMs?: number;
  /** Retry policy for GET/PUT/DELETE on network errors, timeouts and 5xx; `false` disables. */
  retry?: RetryOptions | false;
  /** Injectable sleep used between retries (tests). Must reject when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Injectable randomness for jitter (tests). */
  random?: () => number;
  /** Defaults for {@link AnalyticsClient.events}. */
  events?: Omit<EventStreamOptions, 'url' | 'signal'>;
  /** WebSocket URL; default derived from `baseUrl` (`http` -> `ws`, `https` -> `wss`) plus `/ws`. */
  wsUrl?: string | URL;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Overrides the client's timeout for this call. */
  timeoutMs?: number;
  /** Overrides the client's retry policy for this call (still only for idempotent methods). */
  retry?: RetryOptions | false;
}

export interface PageParams {
  /** Page size, >= 1. The server's default is 50 (and treats negative values as "no limit"). */
  limit?: number;
  offset?: number;
}

export interface IterateOptions extends CallOptions {
  /** Items per request. Default 50. */
  pageSize?: number;
  /** Offset to start from. Default 0. */
  startOffset?: number;
}

export interface DateRange {
  /** Inclusive lower bound. See {@link formatDateParam} for how values are sent. */
  from?: DateInput;
  /** Inclusive upper bound; a `YYYY-MM-DD` day includes that whole (UTC) day. */
  to?: DateInput;
}

export interface SessionFilter extends DateRange {
  /** Project path or project name. */
  project?: string;
  /** Sessions carrying this tag (server extension, not in the spec). */
  tag?: string;
}

export interface MessageFilter {
  sessionId?: string;
  type?: 'user' | 'assistant';
}

export interface ToolCallFilter {
  sessionId?: string;
  toolName?: string;
}

export interface SubagentFilter {
  sessionId?: string;
}

export interface PromptFilter {
  project?: string;
  sessionId?: string;
  /** Preview length in characters (server default 200). */
  previewLength?: number;
}

export interface StatsFilter extends DateRange {
  /** Project path (this endpoint matches the path only, not the name). */
  project?: string;
}

export interface InsightsFilter extends DateRange {
  period?: 'daily' | 'weekly' | 'monthly';
  project?: string;
}

export type ExportFormat = 'json' | 'csv' | 'html';

export interface ExportParams extends DateRange {
  /** Default `json`. `csv` downloads a ZIP of sessions.csv, messages.csv and tool_calls.csv. */
  format?: ExportFormat;
  project?: string;
  /** Export one session (other filters are then ignored by the server). */
  sessionId?: string;
}

export interface ExportDownload {
  format: ExportFormat;
  /** From `Content-Disposition`, or a default per format when the header is missing. */
  fileName: string;
  contentType: string;
  /** `null` for chunked responses. */
  contentLength: number | null;
  /** The file, streamed. Read it once. */
  body: ReadableStream<Uint8Array>;
}

interface RequestSpec {
  method: string;
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
}

const DEFAULT_FILE_NAMES: Record<ExportFormat, string> = {
  json: 'claude-monitor-export.json',
  csv: 'claude-monitor-export.zip',
  html: 'claude-monitor-report.html',
};

const seg = (value: string | number) => encodeURIComponent(String(value));

/**
 * Typed client of the Session Analytics API. Every method accepts {@link CallOptions} (abort signal,
 * timeout, retry) last and rejects only with {@link AnalyticsApiError} (or `TypeError`/`RangeError`
 * for invalid arguments, before any request is sent).
 */
export class AnalyticsClient {
  readonly baseUrl: URL;
  private readonly fetchImpl: FetchLike;
  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;
  private readonly retry: RetryOptions | false | undefined;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly random: () => number;
  private readonly eventDefaults: Omit<EventStreamOptions, 'url' | 'signal'>;
  private readonly wsUrlOverride: string | URL | undefined;

  constructor(options: AnalyticsClientOptions = {}) {
    this.baseUrl = new URL(String(options.baseUrl ?? DEFAULT_BASE_URL));
    const f = options.fetch ?? globalThis.fetch;
    if (typeof f !== 'function') throw new TypeError('No fetch implementation: pass options.fetch');
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.headers = { ...options.headers };
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.retry = options.retry;
    this.sleep = options.sleep ?? defaultSleep;
    this.random = options.random ?? Math.random;
    this.eventDefaults = options.events ?? {};
    this.wsUrlOverride = options.wsUrl;
  }

  // ---------------------------------------------------------------- sessions

  /** GET /api/sessions: one page of sessions, newest first, with the total count. */
  async listSessions(params: SessionFilter & PageParams = {}, options?: CallOptions): Promise<T.SessionPage> {
    return this.call(
      { method: 'GET', path: '/api/sessions', query: { ...sessionQuery(params), ...pageQuery(params) } },
      W.sessionPage,
      options,
    );
  }

  /** Every session matching the filter, fetched page by page (stops at `total`). */
  iterateSessions(filter: SessionFilter = {}, options: IterateOptions = {}): PageIterator<T.Session> {
    return this.iterator(options, async (limit, offset) => {
      const page = await this.listSessions({ ...filter, limit, offset }, options);
      return { items: page.sessions, total: page.total };
    });
  }

  /** GET /api/sessions/{id}: metadata, messages, tool calls, subagents (server caps each list at 1000). */
  async getSession(id: string, options?: CallOptions): Promise<T.SessionDetail> {
    return this.call({ method: 'GET', path: `/api/sessions/${seg(id)}` }, W.sessionDetail, options);
  }

  /**
   * PATCH /api/sessions/{id}: set notes and/or replace tags. Not retried.
   * Note: the server answers 200 even for an unknown id (nothing is stored).
   */
  async updateSession(
    id: string,
    update: T.SessionUpdate,
    options?: CallOptions,
  ): Promise<T.SessionPatchResult> {
    const body: Record<string, string> = {};
    if (update.notes !== undefined) body.notes = update.notes;
    if (update.tags !== undefined) body.tags = formatTags(update.tags);
    return this.call({ method: 'PATCH', path: `/api/sessions/${seg(id)}`, body }, W.patchResult, options);
  }

  /** GET /api/sessions/{id}/timeline. An unknown id yields an empty timeline (server behaviour). */
  async getTimeline(id: string, options?: CallOptions): Promise<T.Timeline> {
    return this.call({ method: 'GET', path: `/api/sessions/${seg(id)}/timeline` }, W.timeline, options);
  }

  /** GET /api/sessions/{id}/commits: git commits linked to the session. */
  async getCommits(id: string, options?: CallOptions): Promise<T.Commit[]> {
    return this.call({ method: 'GET', path: `/api/sessions/${seg(id)}/commits` }, W.commitList, options);
  }

  /** GET /api/sessions/compare?a=&b= (server extension, not in the spec). */
  async compareSessions(a: string, b: string, options?: CallOptions): Promise<T.SessionComparison> {
    return this.call(
      { method: 'GET', path: '/api/sessions/compare', query: { a, b } },
      W.comparison,
      options,
    );
  }

  // ---------------------------------------------------------------- messages, tool calls, subagents

  /** GET /api/messages, oldest first. */
  async listMessages(params: MessageFilter & PageParams = {}, options?: CallOptions): Promise<T.Message[]> {
    const query = { session_id: params.sessionId, type: params.type, ...pageQuery(params) };
    return this.call({ method: 'GET', path: '/api/messages', query }, W.messageList, options);
  }

  iterateMessages(filter: MessageFilter = {}, options: IterateOptions = {}): PageIterator<T.Message> {
    return this.iterator(options, async (limit, offset) => ({
      items: await this.listMessages({ ...filter, limit, offset }, options),
    }));
  }

  /** GET /api/tool-calls, oldest first. */
  async listToolCalls(
    params: ToolCallFilter & PageParams = {},
    options?: CallOptions,
  ): Promise<T.ToolCall[]> {
    const query = { session_id: params.sessionId, tool_name: params.toolName, ...pageQuery(params) };
    return this.call({ method: 'GET', path: '/api/tool-calls', query }, W.toolCallList, options);
  }

  iterateToolCalls(filter: ToolCallFilter = {}, options: IterateOptions = {}): PageIterator<T.ToolCall> {
    return this.iterator(options, async (limit, offset) => ({
      items: await this.listToolCalls({ ...filter, limit, offset }, options),
    }));
  }

  /** GET /api/subagents, oldest first. */
  async listSubagents(
    params: SubagentFilter & PageParams = {},
    options?: CallOptions,
  ): Promise<T.Subagent[]> {
    const query = { session_id: params.sessionId, ...pageQuery(params) };
    return this.call({ method: 'GET', path: '/api/subagents', query }, W.subagentList, options);
  }

  iterateSubagents(filter: SubagentFilter = {}, options: IterateOptions = {}): PageIterator<T.Subagent> {
    return this.iterator(options, async (limit, offset) => ({
      items: await this.listSubagents({ ...filter, limit, offset }, options),
    }));
  }

  /** GET /api/prompts: user prompts, newest first (server extension; server default page size 20). */
  async listPrompts(params: PromptFilter & PageParams = {}, options?: CallOptions): Promise<T.PromptPage> {
    const query = {
      project: params.project,
      session_id: params.sessionId,
      preview_len:
        params.previewLength === undefined
          ? undefined
          : checkInteger('previewLength', params.previewLength, 1),
      ...pageQuery(params),
    };
    return this.call({ method: 'GET', path: '/api/prompts', query }, W.promptPage, options);
  }

  iteratePrompts(filter: PromptFilter = {}, options: IterateOptions = {}): PageIterator<T.Prompt> {
    return this.iterator(options, async (limit, offset) => {
      const page = await this.listPrompts({ ...filter, limit, offset }, options);
      return { items: page.prompts, total: page.total };
    });
  }

  /** GET /api/prompts/{id}: the full prompt and the assistant's answer preview. */
  async getPrompt(id: string, options?: CallOptions): Promise<T.PromptDetail> {
    return this.call({ method: 'GET', path: `/api/prompts/${seg(id)}` }, W.promptDetail, options);
  }

  // ---------------------------------------------------------------- stats

  /** GET /api/stats: today's (or the filter's) usage, all-time totals, active session count. */
  async getStats(filter: StatsFilter = {}, options?: CallOptions): Promise<T.Stats> {
    return this.call(
      { method: 'GET', path: '/api/stats', query: { project: filter.project, ...dateQuery(filter) } },
      W.stats,
      options,
    );
  }

  /** GET /api/stats/daily: one row per UTC day with activity, oldest first (default 90 days). */
  async getDailyStats(params: { days?: number } = {}, options?: CallOptions): Promise<T.DailyStat[]> {
    const days = params.days === undefined ? undefined : checkInteger('days', params.days, 1);
    return this.call({ method: 'GET', path: '/api/stats/daily', query: { days } }, W.dailyList, options);
  }

  async getToolStats(options?: CallOptions): Promise<T.ToolStat[]> {
    return this.call({ method: 'GET', path: '/api/stats/tools' }, W.toolStats, options);
  }

  async getModelStats(options?: CallOptions): Promise<T.ModelStat[]> {
    return this.call({ method: 'GET', path: '/api/stats/models' }, W.modelStats, options);
  }

  async getProjectStats(options?: CallOptions): Promise<T.ProjectStat[]> {
    return this.call({ method: 'GET', path: '/api/stats/projects' }, W.projectStats, options);
  }

  async getSkillStats(options?: CallOptions): Promise<T.NamedCount[]> {
    return this.call({ method: 'GET', path: '/api/stats/skills' }, W.skillStats, options);
  }

  async getMcpStats(options?: CallOptions): Promise<T.McpServerStat[]> {
    return this.call({ method: 'GET', path: '/api/stats/mcp' }, W.mcpStats, options);
  }

  async getErrorStats(filter: StatsFilter = {}, options?: CallOptions): Promise<T.ErrorStats> {
    return this.call(
      { method: 'GET', path: '/api/stats/errors', query: { project: filter.project, ...dateQuery(filter) } },
      W.errorStats,
      options,
    );
  }

  async getTokenEfficiency(options?: CallOptions): Promise<T.TokenEfficiency> {
    return this.call({ method: 'GET', path: '/api/stats/token-efficiency' }, W.tokenEfficiency, options);
  }

  async getPromptPatterns(options?: CallOptions): Promise<T.PromptPatterns> {
    return this.call({ method: 'GET', path: '/api/stats/prompt-patterns' }, W.promptPatterns, options);
  }

  /** GET /api/stats/file-heatmap?project= (required by the server). */
  async getFileHeatmap(params: { project: string }, options?: CallOptions): Promise<T.FileHeatmap> {
    return this.call(
      { method: 'GET', path: '/api/stats/file-heatmap', query: { project: params.project } },
      W.fileHeatmap,
      options,
    );
  }

  async getSessionBreakdown(sessionId: string, options?: CallOptions): Promise<T.Breakdown> {
    return this.call(
      { method: 'GET', path: '/api/stats/session-breakdown', query: { session_id: sessionId } },
      W.breakdown,
      options,
    );
  }

  /** GET /api/stats/project-breakdown?project= (project path; required by the server). */
  async getProjectBreakdown(project: string, options?: CallOptions): Promise<T.Breakdown> {
    return this.call(
      { method: 'GET', path: '/api/stats/project-breakdown', query: { project } },
      W.breakdown,
      options,
    );
  }

  /** GET /api/stats/insights: period-over-period metrics (server extension). */
  async getInsights(filter: InsightsFilter = {}, options?: CallOptions): Promise<T.Insights> {
    const query = { period: filter.period, project: filter.project, ...dateQuery(filter) };
    return this.call({ method: 'GET', path: '/api/stats/insights', query }, W.insights, options);
  }

  /** GET /api/stats/active-sessions: sessions with tool activity in the last 15 minutes (server extension). */
  async getActiveSessions(options?: CallOptions): Promise<T.ActiveSession[]> {
    return this.call({ method: 'GET', path: '/api/stats/active-sessions' }, W.activeSessions, options);
  }

  // ---------------------------------------------------------------- budgets

  async listBudgets(options?: CallOptions): Promise<T.Budget[]> {
    return this.call({ method: 'GET', path: '/api/budgets' }, W.budgetList, options);
  }

  /** POST /api/budgets (201). Not retried. The server always creates budgets enabled. */
  async createBudget(input: T.BudgetInput, options?: CallOptions): Promise<T.Budget> {
    return this.call(
      { method: 'POST', path: '/api/budgets', body: W.budgetToWire(input, false) },
      W.budget,
      options,
    );
  }

  /** PUT /api/budgets/{id}: replaces the budget. `enabled` defaults to `true` (see {@link T.BudgetInput}). */
  async updateBudget(id: number, input: T.BudgetInput, options?: CallOptions): Promise<T.Budget> {
    return this.call(
      {
        method: 'PUT',
        path: `/api/budgets/${seg(checkInteger('id', id, 0))}`,
        body: W.budgetToWire(input, true),
      },
      W.budget,
      options,
    );
  }

  /** DELETE /api/budgets/{id}. Succeeds for unknown ids too (server behaviour). */
  async deleteBudget(id: number, options?: CallOptions): Promise<void> {
    await this.call(
      { method: 'DELETE', path: `/api/budgets/${seg(checkInteger('id', id, 0))}` },
      W.statusReply,
      options,
    );
  }

  /** GET /api/budgets/status: enabled budgets with current spend, percentage (0..100+) and status. */
  async getBudgetStatus(options?: CallOptions): Promise<T.BudgetStatus[]> {
    return this.call({ method: 'GET', path: '/api/budgets/status' }, W.budgetStatusList, options);
  }

  // ---------------------------------------------------------------- tags, git, search

  async listTags(options?: CallOptions): Promise<T.Tag[]> {
    return this.call({ method: 'GET', path: '/api/tags' }, W.tagList, options);
  }

  /** POST /api/git-sync (202): starts an asynchronous commit sync, for one session's repository if given. */
  async syncGit(params: { sessionId?: string } = {}, options?: CallOptions): Promise<T.GitSyncResult> {
    return this.call(
      { method: 'POST', path: '/api/git-sync', query: { session_id: params.sessionId } },
      W.statusReply,
      options,
    );
  }

  /**
   * GET /api/search: full-text search over message content (SQLite FTS syntax; a malformed query
   * is a server 500, which is retried like any 5xx). No match yields `[]` (wire: `null`).
   */
  async search(q: string, params: { limit?: number } = {}, options?: CallOptions): Promise<T.Message[]> {
    const limit = params.limit === undefined ? undefined : checkInteger('limit', params.limit, 1);
    return this.call({ method: 'GET', path: '/api/search', query: { q, limit } }, W.messageList, options);
  }

  // ---------------------------------------------------------------- export

  /** GET /api/export as a stream: JSON array, ZIP (csv) or HTML report. */
  async export(params: ExportParams = {}, options?: CallOptions): Promise<ExportDownload> {
    const format = params.format ?? 'json';
    const { response } = await this.send(
      { method: 'GET', path: '/api/export', query: exportQuery(params, format) },
      options,
      false,
    );
    const disposition = parseContentDisposition(response.headers.get('content-disposition'));
    const length = response.headers.get('content-length');
    return {
      format,
      fileName: disposition?.filename || DEFAULT_FILE_NAMES[format],
      contentType: response.headers.get('content-type') ?? 'application/octet-stream',
      contentLength: length === null || Number.isNaN(Number(length)) ? null : Number(length),
      body: response.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() }),
    };
  }

  /** GET /api/export?format=json, parsed and mapped (buffers the whole export). */
  async exportSessions(
    params: Omit<ExportParams, 'format'> = {},
    options?: CallOptions,
  ): Promise<T.ExportedSession[]> {
    return this.call(
      { method: 'GET', path: '/api/export', query: exportQuery(params, 'json') },
      W.exportedSessions,
      options,
    );
  }

  // ---------------------------------------------------------------- config

  async getConfig(options?: CallOptions): Promise<T.AnalyticsConfig> {
    return this.call({ method: 'GET', path: '/api/config' }, W.config, options);
  }

  /**
   * POST /api/config: the server overlays the body onto its configuration, so a partial object
   * changes only the given fields. Returns the saved configuration. Not retried.
   */
  async saveConfig(config: T.AnalyticsConfig, options?: CallOptions): Promise<T.AnalyticsConfig> {
    return this.call(
      { method: 'POST', path: '/api/config', body: W.configToWire(config) },
      W.config,
      options,
    );
  }

  // ---------------------------------------------------------------- events

  /** The `/ws` URL derived from the base URL (or the `wsUrl` option). */
  get wsUrl(): string {
    if (this.wsUrlOverride !== undefined) return String(this.wsUrlOverride);
    const url = new URL(this.baseUrl.href);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    url.pathname = `${url.pathname.replace(/\/$/, '')}/ws`;
    url.search = '';
    url.hash = '';
    return url.href;
  }

  /** Opens the real-time event stream (see {@link EventStream}). */
  events(options: Omit<EventStreamOptions, 'url'> = {}): EventStream {
    const stream = new EventStream({ ...this.eventDefaults, ...options, url: this.wsUrl });
    stream.connect();
    return stream;
  }

  // ---------------------------------------------------------------- low level

  /**
   * Escape hatch for endpoints this client does not model: sends the request with the same
   * error handling and retry policy, and returns the parsed JSON (or `undefined` for an empty body).
   */
  async request(
    method: string,
    path: string,
    init: { query?: Record<string, QueryValue>; body?: unknown } = {},
    options?: CallOptions,
  ): Promise<unknown> {
    const { text, request, response } = await this.send({ method, path, ...init }, options, true);
    if (text === '') return undefined;
    return parseJson(text, request, response.status);
  }

  private iterator<I>(
    options: IterateOptions,
    fetchPage: (limit: number, offset: number) => Promise<{ items: I[]; total?: number }>,
  ): PageIterator<I> {
    const pageSize = checkInteger('pageSize', options.pageSize ?? 50, 1);
    const start = checkInteger('startOffset', options.startOffset ?? 0, 0);
    return new PageIterator<I>(fetchPage, pageSize, start);
  }

  private async call<S extends z.ZodType, R>(
    spec: RequestSpec,
    decoder: W.Decoder<S, R>,
    options?: CallOptions,
  ): Promise<R> {
    return decoder.map(await this.json(spec, decoder.schema, options));
  }

  private async json<S extends z.ZodType>(
    spec: RequestSpec,
    schema: S,
    options?: CallOptions,
  ): Promise<z.output<S>> {
    const { text, request, response } = await this.send(spec, options, true);
    const value = parseJson(text, request, response.status);
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      throw new AnalyticsApiError({
        kind: 'invalid_response',
        request,
        status: response.status,
        body: text,
        cause: parsed.error,
      });
    }
    return parsed.data;
  }

  private url(spec: RequestSpec): URL {
    const url = new URL(this.baseUrl.href);
    url.pathname = `${url.pathname.replace(/\/$/, '')}${spec.path}`;
    url.search = spec.query ? buildQuery(spec.query).toString() : '';
    url.hash = '';
    return url;
  }

  /**
   * Sends with timeout, abort and retries. Resolves with a 2xx response; with `readText`, the body is
   * read inside the same attempt (so a body cut off mid-way is a retryable network error).
   */
  private async send(
    spec: RequestSpec,
    options: CallOptions | undefined,
    readText: true,
  ): Promise<{ response: Response; text: string; request: RedactedRequest }>;
  private async send(
    spec: RequestSpec,
    options: CallOptions | undefined,
    readText: false,
  ): Promise<{ response: Response; text: undefined; request: RedactedRequest }>;
  private async send(
    spec: RequestSpec,
    options: CallOptions | undefined,
    readText: boolean,
  ): Promise<{ response: Response; text: string | undefined; request: RedactedRequest }> {
    const method = spec.method.toUpperCase();
    const url = this.url(spec);
    const request = redactRequest(method, url);
    const policy = resolveRetry(IDEMPOTENT_METHODS.has(method) ? (options?.retry ?? this.retry) : false);
    const timeoutMs = options?.timeoutMs ?? this.timeoutMs;
    const signal = options?.signal;
    const headers: Record<string, string> = { accept: 'application/json', ...this.headers };
    let body: string | undefined;
    if (spec.body !== undefined) {
      body = JSON.stringify(spec.body);
      headers['content-type'] = 'application/json';
    }

    for (let attempt = 1; ; attempt++) {
      try {
        return await this.attempt(url, method, headers, body, request, signal, timeoutMs, readText, attempt);
      } catch (error) {
        if (!(error instanceof AnalyticsApiError)) throw error;
        if (!error.isTransient || attempt > policy.retries) throw error;
        try {
          await this.sleep(backoffDelay(attempt, policy, this.random), signal);
        } catch (cause) {
          throw new AnalyticsApiError({ kind: 'aborted', request, attempts: attempt, cause });
        }
      }
    }
  }

  private async attempt(
    url: URL,
    method: string,
    headers: Record<string, string>,
    body: string | undefined,
    request: RedactedRequest,
    signal: AbortSignal | undefined,
    timeoutMs: number,
    readText: boolean,
    attempts: number,
  ): Promise<{ response: Response; text: string | undefined; request: RedactedRequest }> {
    if (signal?.aborted)
      throw new AnalyticsApiError({ kind: 'aborted', request, attempts, cause: signal.reason });
    const controller = new AbortController();
    let timedOut = false;
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const timer =
      timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            controller.abort(new Error(`Timed out after ${timeoutMs} ms`));
          }, timeoutMs)
        : undefined;
    const classify = (cause: unknown): AnalyticsApiError => {
      if (signal?.aborted)
        return new AnalyticsApiError({ kind: 'aborted', request, attempts, cause: signal.reason });
      if (timedOut) return new AnalyticsApiError({ kind: 'timeout', request, attempts, cause });
      return new AnalyticsApiError({ kind: 'network', request, attempts, cause });
    };
    let streaming = false;
    try {
      let response: Response;
      try {
        response = await this.fetchImpl(url.href, { method, headers, body, signal: controller.signal });
      } catch (cause) {
        throw classify(cause);
      }
      if (!response.ok || readText) {
        let text: string;
        try {
          text = await response.text();
        } catch (cause) {
          throw classify(cause);
        }
        if (!response.ok) {
          throw new AnalyticsApiError({
            kind: 'http',
            request,
            attempts,
            status: response.status,
            serverMessage: serverMessage(text),
            body: text,
          });
        }
        return { response, text, request };
      }
      streaming = true;
      return { response, text: undefined, request };
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      // A streamed body stays tied to the caller's signal until it is read.
      if (!streaming) signal?.removeEventListener('abort', onAbort);
    }
  }
}

function parseJson(text: string, request: RedactedRequest, status: number): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new AnalyticsApiError({ kind: 'invalid_response', request, status, body: text, cause });
  }
}

/** `{"error": "..."}` -> its text; a plain-text body (`404 page not found`) -> the trimmed text. */
export function serverMessage(body: string): string | undefined {
  const trimmed = body.trim();
  if (trimmed === '') return undefined;
  try {
    const parsed = W.wireError.safeParse(JSON.parse(trimmed));
    if (parsed.success) return parsed.data.error;
  } catch {
    // not JSON: fall through to plain text
  }
  if (trimmed.startsWith('<')) return undefined; // an HTML page says nothing useful
  return trimmed.length > 200 ? `${trimmed.slice(0, 200)}…` : trimmed;
}

function pageQuery(params: PageParams): Record<string, QueryValue> {
  return {
    limit: params.limit === undefined ? undefined : checkInteger('limit', params.limit, 1),
    offset: params.offset === undefined ? undefined : checkInteger('offset', params.offset, 0),
  };
}

function dateQuery(range: DateRange): Record<string, QueryValue> {
  return {
    from: range.from === undefined ? undefined : formatDateParam(range.from, 'from'),
    to: range.to === undefined ? undefined : formatDateParam(range.to, 'to'),
  };
}

function sessionQuery(filter: SessionFilter): Record<string, QueryValue> {
  return { project: filter.project, ...dateQuery(filter), tag: filter.tag };
}

function exportQuery(params: Omit<ExportParams, 'format'>, format: ExportFormat): Record<string, QueryValue> {
  return { format, project: params.project, ...dateQuery(params), session_id: params.sessionId };
}
