/** Tracker client: the work-tracking plugin's writes to an issue tracker. */
import type { CallOptions } from '../vocabulary';

export interface TrackerTicket {
  key: string;
  title: string;
  status: string;
  url?: string;
}

export interface TrackerClient {
  getTicket(key: string, options?: CallOptions): Promise<TrackerTicket | undefined>;
  /** Adds a comment and/or sets fields on a ticket. */
  updateTicket(
    key: string,
    update: { comment?: string; fields?: Record<string, unknown> },
    options?: CallOptions,
  ): Promise<void>;
  /** Moves a ticket through a named transition (e.g. the tracker's `defaultMergeTransition`). */
  transition(key: string, transitionName: string, options?: CallOptions): Promise<void>;
}
