// Input schemas of the export endpoint (spec: `GET /api/export`).
import { z } from 'zod';
import { checkRange, dateRangeShape, optionalText, type Query } from './common';

export const exportFormat = z.enum(['json', 'csv', 'html'], { error: "must be 'json', 'csv' or 'html'" });

const exportFilterShape = {
  project: optionalText,
  ...dateRangeShape,
  /** Export one session (other filters are then ignored by the server). */
  sessionId: optionalText,
};

const toQuery = (
  format: string,
  v: { project?: string; from?: string; to?: string; sessionId?: string },
) => ({
  format,
  project: v.project,
  from: v.from,
  to: v.to,
  session_id: v.sessionId,
});

/** `export()`: the format (default `json`; `csv` is a ZIP) and the filter. */
export const exportParams = z
  .strictObject({ format: exportFormat.optional(), ...exportFilterShape })
  .superRefine(checkRange)
  .transform((v): { format: z.output<typeof exportFormat>; query: Query } => {
    const format = v.format ?? 'json';
    return { format, query: toQuery(format, v) };
  });

/** `exportSessions()`: always `format=json`. */
export const exportSessionsParams = z
  .strictObject(exportFilterShape)
  .superRefine(checkRange)
  .transform((v): Query => toQuery('json', v));

export type ExportFormat = z.output<typeof exportFormat>;
export type ExportParams = z.input<typeof exportParams>;
export type ExportFilter = z.input<typeof exportSessionsParams>;
