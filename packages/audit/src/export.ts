/**
 * Streamed exports. Both forms are web `ReadableStream<Uint8Array>`s pulled from an async
 * iterable of records (store.scan): memory stays bounded by one chunk (~64 KiB) whatever the
 * size of the export, and cancelling the stream stops the scan.
 *
 * JSON: `{"entries":[…],"total":N}` — `total` is written after the entries and is the number of
 * entries actually written (one pass, no separate count that could disagree with the rows).
 * CSV: RFC 4180 (CRLF, quotes doubled, quoted when a cell holds `"` `,` CR or LF) with the spec's
 * header; cells starting with = + - @ TAB or CR get a leading `'` (formula-injection guard).
 * A failure mid-stream (the database goes away) ends the body with an error marker instead of
 * resetting it: JSON gets an `error` member (`{error, message}`, the spec's error body) after
 * `total`; CSV gets a last line starting `#ERROR,`. A complete export has neither.
 */
import type { AuditEntry, AuditRecord } from '@agentgov/core';

export const CSV_COLUMNS = [
  'id',
  'tenant_id',
  'user_id',
  'timestamp',
  'action_type',
  'data_classification',
  'policy_applied',
  'policy_result',
  'outcome',
  'request_id',
] as const;

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** One CSV cell: formula-injection neutralised, then RFC 4180 quoted when needed. */
export function csvCell(value: string): string {
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** The CSV line (with CRLF) of one entry, in CSV_COLUMNS order. */
export function csvRow(entry: AuditEntry): string {
  return `${[
    entry.id,
    entry.tenantId,
    entry.userId,
    entry.timestamp,
    entry.actionType,
    entry.dataClassification,
    entry.policyApplied,
    entry.policyResult,
    entry.outcome,
    entry.requestId,
  ]
    .map(csvCell)
    .join(',')}\r\n`;
}

export const CSV_HEADER = `${CSV_COLUMNS.join(',')}\r\n`;

const CHUNK = 64 * 1024;

/** Streams the entries of `records` as the JSON or CSV export body. */
export function exportStream(
  records: AsyncIterable<AuditRecord>,
  format: 'json' | 'csv',
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let iterator: AsyncIterator<AuditRecord> | undefined;
  let count = 0;
  let done = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (done) return;
        let text = '';
        if (!iterator) {
          iterator = records[Symbol.asyncIterator]();
          text = format === 'csv' ? CSV_HEADER : '{"entries":[';
        }
        try {
          while (text.length < CHUNK) {
            const next = await iterator.next();
            if (next.done) {
              done = true;
              if (format === 'json') text += `],"total":${count}}`;
              break;
            }
            const entry = next.value.entry;
            if (format === 'csv') text += csvRow(entry);
            else text += (count > 0 ? ',' : '') + JSON.stringify(entry);
            count++;
          }
        } catch {
          // Never a reset or a silently short body that looks complete: what was read goes out,
          // then a marker no complete export has, then the stream ends normally.
          done = true;
          const message = `the export failed after ${count} entries; it is incomplete`;
          text +=
            format === 'csv'
              ? `#ERROR,${csvCell(message)}\r\n`
              : `],"total":${count},"error":${JSON.stringify({ error: 'service_unavailable', message })}}`;
        }
        if (text) controller.enqueue(encoder.encode(text));
        if (done) controller.close();
      },
      async cancel() {
        done = true;
        await iterator?.return?.();
      },
    },
    { highWaterMark: 1 },
  );
}
