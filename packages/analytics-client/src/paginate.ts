/** Offset pagination as async iterators, in the style of octokit's `paginate.iterator`. */

export interface Page<T> {
  items: T[];
  /** Offset of the first item of this page. */
  offset: number;
  /** Total count when the endpoint reports one (sessions, prompts), else `undefined`. */
  total: number | undefined;
}

export type FetchPage<T> = (
  limit: number,
  offset: number,
) => Promise<{ items: T[]; total?: number | undefined }>;

export interface CollectOptions<T> {
  /** Stop after this many items. */
  max?: number;
  /** Stop (without including it) at the first item for which this returns true. */
  until?: (item: T, index: number) => boolean;
}

/** Builds the error thrown when a page repeats the previous one (see {@link PageIterator}). */
export type RepeatedPageError = (page: { offset: number; limit: number }) => Error;

/** An item's identity for the repeat check: its `id` when it has one, else the value itself. */
function itemKey(item: unknown): unknown {
  if (typeof item === 'object' && item !== null && 'id' in item) return (item as { id: unknown }).id;
  return item;
}

function samePage(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((key, i) => Object.is(key, b[i]));
}

/**
 * An async iterable over every item of an offset-paginated endpoint. Pages are fetched lazily, one at
 * a time: breaking out of `for await` stops fetching.
 *
 * Where the page reports a `total`, iteration goes on until `offset` reaches it, even past a page
 * shorter than requested (a server may cap its page size), and ends early only on an empty page.
 * Without a `total`, it ends on a short or empty page. A page holding the same items (by `id`) as the
 * previous one means the server ignored `offset`: rather than loop forever over duplicates, iteration
 * fails with the error `repeated` builds (default: an `Error` saying so); the first copy was yielded.
 */
export class PageIterator<T> implements AsyncIterable<T> {
  constructor(
    private readonly fetchPage: FetchPage<T>,
    private readonly pageSize: number,
    private readonly startOffset = 0,
    private readonly repeated: RepeatedPageError = ({ offset, limit }) =>
      new Error(
        `The page at offset ${offset} (limit ${limit}) repeats the previous page: the server ignores offset`,
      ),
  ) {}

  /** Iterates page by page. */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let offset = this.startOffset;
    let previous: unknown[] | undefined;
    for (;;) {
      const { items, total } = await this.fetchPage(this.pageSize, offset);
      if (items.length === 0) return;
      const keys = items.map(itemKey);
      if (previous !== undefined && samePage(previous, keys)) {
        throw this.repeated({ offset, limit: this.pageSize });
      }
      previous = keys;
      yield { items, offset, total };
      offset += items.length;
      if (total !== undefined ? offset >= total : items.length < this.pageSize) return;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.items;
  }

  /** Collects items into an array, optionally stopping early (no further page is requested). */
  async collect(options: CollectOptions<T> = {}): Promise<T[]> {
    const out: T[] = [];
    if (options.max !== undefined && options.max <= 0) return out;
    let index = 0;
    for await (const item of this) {
      if (options.until?.(item, index)) break;
      out.push(item);
      index++;
      if (options.max !== undefined && out.length >= options.max) break;
    }
    return out;
  }
}
