// Exports (spec: `GET /api/export`): the file as a stream (JSON, a ZIP for csv, or an HTML report), or
// the JSON export parsed into sessions.
import { parseContentDisposition } from '../content-disposition';
import {
  type ExportFilter,
  type ExportFormat,
  type ExportParams,
  exportParams,
  exportSessionsParams,
} from '../input/export';
import type * as T from '../types';
import { exportedSessions } from '../wire/export';
import { ClientCore } from './core';
import type { CallOptions } from './options';

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

/** The media type of each format (spec: JSON, a ZIP archive for csv, an HTML report), sent as `Accept`. */
const MEDIA_TYPES: Record<ExportFormat, string> = {
  json: 'application/json',
  csv: 'application/zip',
  html: 'text/html',
};

const DEFAULT_FILE_NAMES: Record<ExportFormat, string> = {
  json: 'claude-monitor-export.json',
  csv: 'claude-monitor-export.zip',
  html: 'claude-monitor-report.html',
};

export abstract class ExportApi extends ClientCore {
  /** GET /api/export as a stream: JSON array, ZIP (csv) or HTML report. `format` must be one of the three. */
  async export(params: ExportParams = {}, options?: CallOptions): Promise<ExportDownload> {
    const { format, query } = this.input(exportParams, params, 'GET /api/export');
    const accept = MEDIA_TYPES[format];
    const response = await this.stream({ method: 'GET', path: '/api/export', query, accept }, options);
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
  async exportSessions(params: ExportFilter = {}, options?: CallOptions): Promise<T.ExportedSession[]> {
    const query = this.input(exportSessionsParams, params, 'GET /api/export');
    return this.call({ method: 'GET', path: '/api/export', query }, exportedSessions, options);
  }
}
