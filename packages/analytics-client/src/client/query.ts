// Query-string and path pieces several API areas build their requests from.
import { checkOptionalInteger, formatDateParam, type QueryValue } from '../params';
import type { DateRange, PageParams } from './options';

/** One path segment, percent-encoded. */
export const seg = (value: string | number) => encodeURIComponent(String(value));

/** `limit` (>= 1) and `offset` (>= 0), validated. */
export function pageQuery(params: PageParams): Record<string, QueryValue> {
  return {
    limit: checkOptionalInteger('limit', params.limit, 1),
    offset: checkOptionalInteger('offset', params.offset, 0),
  };
}

/** `from`/`to` as the server compares them (see {@link formatDateParam}). */
export function dateQuery(range: DateRange): Record<string, QueryValue> {
  return {
    from: range.from === undefined ? undefined : formatDateParam(range.from, 'from'),
    to: range.to === undefined ? undefined : formatDateParam(range.to, 'to'),
  };
}
