// Real-time events (spec: Events): the `/ws` URL and the self-reconnecting event stream.
import { EventStream, type EventStreamOptions } from '../events';
import { ClientCore } from './core';
import { joinUrl } from './http';

export abstract class EventsApi extends ClientCore {
  /** The `/ws` URL derived from the base URL (or the `wsUrl` option). */
  get wsUrl(): string {
    if (this.wsUrlOverride !== undefined) return String(this.wsUrlOverride);
    return joinUrl(this.baseUrl, '/ws', '', this.baseUrl.protocol === 'https:' ? 'wss:' : 'ws:').href;
  }

  /** Opens the real-time event stream (see {@link EventStream}). */
  events(options: Omit<EventStreamOptions, 'url'> = {}): EventStream {
    const stream = new EventStream({ ...this.eventDefaults, ...options, url: this.wsUrl });
    stream.connect();
    return stream;
  }
}
