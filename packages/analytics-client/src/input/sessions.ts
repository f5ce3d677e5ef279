// Input schemas of the session endpoints (spec: Session, Timeline, Tag, git sync).
import { z } from 'zod';
import { formatTags } from '../params';
import { checkRange, dateRangeShape, optionalText, pageShape, type Query, required } from './common';

const sessionFilterShape = {
  /** Project path or project name. */
  project: optionalText,
  ...dateRangeShape,
  /** Model name, e.g. `claude-sonnet-4-5` (spec parameter; the current server ignores it). */
  model: optionalText,
  /** Full-text filter (spec parameter; the current server ignores it: use `search()`). */
  search: optionalText,
  /** Sessions carrying this tag (server extension, not in the spec). */
  tag: optionalText,
};

const toQuery = (v: {
  project?: string;
  from?: string;
  to?: string;
  model?: string;
  search?: string;
  tag?: string;
  limit?: number;
  offset?: number;
}): Query => ({
  project: v.project,
  from: v.from,
  to: v.to,
  model: v.model,
  search: v.search,
  tag: v.tag,
  limit: v.limit,
  offset: v.offset,
});

/** The filter of `listSessions`/`iterateSessions`. */
export const sessionFilter = z.strictObject(sessionFilterShape).superRefine(checkRange).transform(toQuery);
/** `GET /api/sessions`: the filter plus `limit`/`offset`. */
export const sessionListParams = z
  .strictObject({ ...sessionFilterShape, ...pageShape })
  .superRefine(checkRange)
  .transform(toQuery);

const tag = z
  .string({ error: 'must be a string' })
  .refine((t) => !t.includes(','), { message: 'a tag cannot contain a comma' });

/** `PATCH /api/sessions/{id}`: notes and/or tags; tags are sent as one comma-separated string. */
export const sessionUpdate = z
  .strictObject({
    id: required,
    notes: z.string({ error: 'must be a string' }).optional(),
    /** Replaces all tags. Tags are trimmed, empty ones dropped, duplicates removed. */
    tags: z.array(tag, { error: 'must be an array of strings' }).readonly().optional(),
  })
  .transform((v) => {
    const body: Record<string, string> = {};
    if (v.notes !== undefined) body.notes = v.notes;
    if (v.tags !== undefined) body.tags = formatTags(v.tags);
    return { id: v.id, body };
  });

/** `GET /api/sessions/compare?a=&b=`. */
export const sessionPair = z.strictObject({ a: required, b: required });

/** `POST /api/git-sync`: optionally one session's repository. */
export const gitSyncParams = z
  .strictObject({ sessionId: required.optional() })
  .transform((v): Query => ({ session_id: v.sessionId }));

export type SessionFilter = z.input<typeof sessionFilter>;
export type SessionListParams = z.input<typeof sessionListParams>;
export type SessionUpdate = Omit<z.input<typeof sessionUpdate>, 'id'>;
export type GitSyncParams = z.input<typeof gitSyncParams>;
