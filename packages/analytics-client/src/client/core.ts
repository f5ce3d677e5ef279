// What every API-area module of the client builds on: the configuration, the HTTP transport, input
// validation, and the helpers the endpoint methods are written with (one decoded JSON call, one
// streamed download, one paginated iterator), each reporting its raw response to `withResponse`.
import { z } from 'zod';
import { AnalyticsApiError, redactRequest } from '../errors';
import type { EventStreamOptions } from '../events';
import { iterateShape, validate } from '../input/common';
import { clientOptions } from '../input/options';
import { type FetchPage, PageIterator } from '../paginate';
import type { Decoder } from '../wire/primitives';
import { HttpTransport, joinUrl, type RequestSpec } from './http';
import {
  type AnalyticsClientOptions,
  type CallOptions,
  DEFAULT_BASE_URL,
  type IterateOptions,
} from './options';

const iterateOptions = z.object(iterateShape).loose();

export abstract class ClientCore {
  readonly baseUrl: URL;
  protected readonly http: HttpTransport;
  protected readonly eventDefaults: Omit<EventStreamOptions, 'url' | 'signal'>;
  protected readonly wsUrlOverride: string | URL | undefined;
  /** Set on the per-call views `withResponse` creates: receives the raw response of the call. */
  declare protected readonly responseSink?: (response: Response) => void;

  constructor(options: AnalyticsClientOptions = {}) {
    const { baseUrl } = validate(clientOptions, options, 'new AnalyticsClient');
    this.baseUrl = baseUrl ?? new URL(DEFAULT_BASE_URL);
    this.http = new HttpTransport(this.baseUrl, options);
    this.eventDefaults = options.events ?? {};
    this.wsUrlOverride = options.wsUrl;
  }

  /** Validates a method's arguments with its input schema (see `src/input/`); nothing is sent on failure. */
  protected input<S extends z.ZodType>(schema: S, value: unknown, endpoint: string): z.output<S> {
    return validate(schema, value, endpoint);
  }

  /** Sends the request and decodes its JSON body into the public type. */
  protected async call<S extends z.ZodType, R>(
    spec: RequestSpec,
    decoder: Decoder<S, R>,
    options?: CallOptions,
  ): Promise<R> {
    const { value, response } = await this.http.json(spec, decoder.schema, options);
    this.responseSink?.(response);
    return decoder.map(value);
  }

  /** Sends the request and resolves with the 2xx response once its headers arrive (body unread). */
  protected async stream(spec: RequestSpec, options?: CallOptions): Promise<Response> {
    const { response } = await this.http.send(spec, options, false);
    this.responseSink?.(response);
    return response;
  }

  /** Sends the request and resolves with the body text and response. */
  protected async text(spec: RequestSpec, options?: CallOptions) {
    const sent = await this.http.send(spec, options, true);
    this.responseSink?.(sent.response);
    return sent;
  }

  /** A lazy iterator over an offset-paginated list method. */
  protected iterator<I>(endpoint: string, options: IterateOptions, fetchPage: FetchPage<I>): PageIterator<I> {
    const { pageSize, startOffset } = this.input(iterateOptions, options, endpoint);
    const [method = 'GET', path = '/'] = endpoint.split(' ');
    // A server that ignores `offset` answers every page alike: fail instead of looping over duplicates.
    const repeated = ({ offset, limit }: { offset: number; limit: number }) =>
      new AnalyticsApiError({
        kind: 'invalid_response',
        request: redactRequest(method, joinUrl(this.baseUrl, path)),
        cause: new Error(
          `the page at offset ${offset} (limit ${limit}) repeats the previous page's items: the server ignores offset`,
        ),
      });
    return new PageIterator<I>(fetchPage, pageSize ?? 50, startOffset ?? 0, repeated);
  }
}
