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

/**
 * An async iterable over every item of an offset-paginated endpoint. Pages are fetched lazily, one at
 * a time: breaking out of `for await` stops fetching. Iteration ends on a short page, an empty page,
 * or when `offset` reaches the reported `total`.
 */
export class PageIterator<T> implements AsyncIterable<T> {
  constructor(
    private readonly fetchPage: FetchPage<T>,
    private readonly pageSize: number,
    private readonly startOffset = 0,
  ) {}

  /** Iterates page by page. */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let offset = this.startOffset;
    for (;;) {
      const { items, total } = await this.fetchPage(this.pageSize, offset);
      if (items.length === 0) return;
      yield { items, offset, total };
      offset += items.length;
      if (items.length < this.pageSize) return;
      if (total !== undefined && offset >= total) return;
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
