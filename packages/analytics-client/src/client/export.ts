// Exports (spec: `GET /api/export`): the file as a stream (JSON, a ZIP for csv, or an HTML report), or
// the JSON export parsed into sessions.
import { parseContentDisposition } from '../content-disposition';
import type { QueryValue } from '../params';
import type * as T from '../types';
import { exportedSessions } from '../wire/export';
import { ClientCore } from './core';
import type { CallOptions, DateRange } from './options';
import { dateQuery } from './query';

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

const DEFAULT_FILE_NAMES: Record<ExportFormat, string> = {
  json: 'claude-monitor-export.json',
  csv: 'claude-monitor-export.zip',
  html: 'claude-monitor-report.html',
};

function exportQuery(params: Omit<ExportParams, 'format'>, format: ExportFormat): Record<string, QueryValue> {
  return { format, project: params.project, ...dateQuery(params), session_id: params.sessionId };
}

export abstract class ExportApi extends ClientCore {
  /** GET /api/export as a stream: JSON array, ZIP (csv) or HTML report. */
  async export(params: ExportParams = {}, options?: CallOptions): Promise<ExportDownload> {
    const format = params.format ?? 'json';
    const { response } = await this.http.send(
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
      exportedSessions,
      options,
    );
  }
}
