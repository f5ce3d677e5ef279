// What every API-area module of the client builds on: the configuration, the HTTP transport, and the
// two helpers the endpoint methods are written with (one decoded JSON call, one paginated iterator).
import type { z } from 'zod';
import type { EventStreamOptions } from '../events';
import { PageIterator } from '../paginate';
import { checkInteger } from '../params';
import type { Decoder } from '../wire/primitives';
import { HttpTransport, type RequestSpec } from './http';
import {
  type AnalyticsClientOptions,
  type CallOptions,
  DEFAULT_BASE_URL,
  type IterateOptions,
} from './options';

export abstract class ClientCore {
  readonly baseUrl: URL;
  protected readonly http: HttpTransport;
  protected readonly eventDefaults: Omit<EventStreamOptions, 'url' | 'signal'>;
  protected readonly wsUrlOverride: string | URL | undefined;

  constructor(options: AnalyticsClientOptions = {}) {
    this.baseUrl = new URL(String(options.baseUrl ?? DEFAULT_BASE_URL));
    this.http = new HttpTransport(this.baseUrl, options);
    this.eventDefaults = options.events ?? {};
    this.wsUrlOverride = options.wsUrl;
  }

  /** Sends the request and decodes its JSON body into the public type. */
  protected async call<S extends z.ZodType, R>(
    spec: RequestSpec,
    decoder: Decoder<S, R>,
    options?: CallOptions,
  ): Promise<R> {
    return decoder.map(await this.http.json(spec, decoder.schema, options));
  }

  /** A lazy iterator over an offset-paginated list method. */
  protected iterator<I>(
    options: IterateOptions,
    fetchPage: (limit: number, offset: number) => Promise<{ items: I[]; total?: number }>,
  ): PageIterator<I> {
    const pageSize = checkInteger('pageSize', options.pageSize ?? 50, 1);
    const start = checkInteger('startOffset', options.startOffset ?? 0, 0);
    return new PageIterator<I>(fetchPage, pageSize, start);
  }
}
