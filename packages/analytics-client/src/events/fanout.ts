// Delivery of an event stream's output: the callbacks registered with `on`, and any number of async
// iterators, each with its own bounded buffer.
import type { AnalyticsApiError } from '../errors';
import type { AnalyticsEvent } from './types';

export interface EventStreamListeners {
  event: (event: AnalyticsEvent) => void;
  open: () => void;
  close: (info: { code: number; reason: string }) => void;
  reconnecting: (info: { attempt: number; delayMs: number }) => void;
  /** Connection errors and unparsable frames; the stream keeps going unless it gave up (then `closed`). */
  error: (error: AnalyticsApiError) => void;
}

interface Consumer {
  buffer: AnalyticsEvent[];
  wake: (() => void) | undefined;
}

export class EventFanout {
  private readonly listeners: { [K in keyof EventStreamListeners]: Set<EventStreamListeners[K]> } = {
    event: new Set(),
    open: new Set(),
    close: new Set(),
    reconnecting: new Set(),
    error: new Set(),
  };
  private readonly consumers = new Set<Consumer>();
  private ended = false;
  private fatal: AnalyticsApiError | undefined;

  on<K extends keyof EventStreamListeners>(type: K, listener: EventStreamListeners[K]): () => void {
    this.listeners[type].add(listener);
    return () => this.listeners[type].delete(listener);
  }

  emit<K extends keyof EventStreamListeners>(type: K, ...args: Parameters<EventStreamListeners[K]>): void {
    for (const listener of [...this.listeners[type]]) {
      try {
        (listener as (...a: Parameters<EventStreamListeners[K]>) => void)(...args);
      } catch {
        // a throwing listener must not break the stream
      }
    }
  }

  /** Queues the event for every iterator, dropping the oldest beyond `maxBuffer`. */
  push(event: AnalyticsEvent, maxBuffer: number): void {
    for (const c of this.consumers) {
      c.buffer.push(event);
      if (c.buffer.length > maxBuffer) c.buffer.shift();
      c.wake?.();
    }
  }

  /** No more events: iterators finish after draining their buffers, or then reject with `fatal`. */
  end(fatal: AnalyticsApiError | undefined): void {
    this.ended = true;
    this.fatal = fatal;
    for (const c of this.consumers) c.wake?.();
  }

  /** A new iterator; `onReturn` runs when its consumer stops early (break/return). */
  iterator(onReturn: () => void): AsyncIterator<AnalyticsEvent> {
    const consumer: Consumer = { buffer: [], wake: undefined };
    this.consumers.add(consumer);
    const finish = (): IteratorResult<AnalyticsEvent> => {
      this.consumers.delete(consumer);
      return { done: true, value: undefined };
    };
    return {
      next: async () => {
        for (;;) {
          const item = consumer.buffer.shift();
          if (item !== undefined) return { done: false, value: item };
          if (this.ended) {
            if (this.fatal) {
              const error = this.fatal;
              finish();
              throw error;
            }
            return finish();
          }
          await new Promise<void>((resolve) => {
            consumer.wake = resolve;
          });
          consumer.wake = undefined;
        }
      },
      return: async () => {
        onReturn();
        return finish();
      },
    };
  }
}
