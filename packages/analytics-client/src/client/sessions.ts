// Sessions (spec: Session, Timeline, Tag): list, detail, notes and tags, timeline, linked git commits
// and their sync, tags in use, and the server's session comparison.
import type { PageIterator } from '../paginate';
import { formatTags, type QueryValue } from '../params';
import type * as T from '../types';
import { statusReply } from '../wire/common';
import { commitList, comparison, patchResult, sessionDetail, sessionPage, tagList } from '../wire/sessions';
import { timeline } from '../wire/timeline';
import { ClientCore } from './core';
import type { CallOptions, DateRange, IterateOptions, PageParams } from './options';
import { dateQuery, pageQuery, seg } from './query';

export interface SessionFilter extends DateRange {
  /** Project path or project name. */
  project?: string;
  /** Sessions carrying this tag (server extension, not in the spec). */
  tag?: string;
}

function sessionQuery(filter: SessionFilter): Record<string, QueryValue> {
  return { project: filter.project, ...dateQuery(filter), tag: filter.tag };
}

export abstract class SessionsApi extends ClientCore {
  /** GET /api/sessions: one page of sessions, newest first, with the total count. */
  async listSessions(params: SessionFilter & PageParams = {}, options?: CallOptions): Promise<T.SessionPage> {
    return this.call(
      { method: 'GET', path: '/api/sessions', query: { ...sessionQuery(params), ...pageQuery(params) } },
      sessionPage,
      options,
    );
  }

  /** Every session matching the filter, fetched page by page (stops at `total`). */
  iterateSessions(filter: SessionFilter = {}, options: IterateOptions = {}): PageIterator<T.Session> {
    return this.iterator(options, async (limit, offset) => {
      const page = await this.listSessions({ ...filter, limit, offset }, options);
      return { items: page.sessions, total: page.total };
    });
  }

  /** GET /api/sessions/{id}: metadata, messages, tool calls, subagents (server caps each list at 1000). */
  async getSession(id: string, options?: CallOptions): Promise<T.SessionDetail> {
    return this.call({ method: 'GET', path: `/api/sessions/${seg(id)}` }, sessionDetail, options);
  }

  /**
   * PATCH /api/sessions/{id}: set notes and/or replace tags. Not retried.
   * Note: the server answers 200 even for an unknown id (nothing is stored).
   */
  async updateSession(
    id: string,
    update: T.SessionUpdate,
    options?: CallOptions,
  ): Promise<T.SessionPatchResult> {
    const body: Record<string, string> = {};
    if (update.notes !== undefined) body.notes = update.notes;
    if (update.tags !== undefined) body.tags = formatTags(update.tags);
    return this.call({ method: 'PATCH', path: `/api/sessions/${seg(id)}`, body }, patchResult, options);
  }

  /** GET /api/sessions/{id}/timeline. An unknown id yields an empty timeline (server behaviour). */
  async getTimeline(id: string, options?: CallOptions): Promise<T.Timeline> {
    return this.call({ method: 'GET', path: `/api/sessions/${seg(id)}/timeline` }, timeline, options);
  }

  /** GET /api/sessions/{id}/commits: git commits linked to the session. */
  async getCommits(id: string, options?: CallOptions): Promise<T.Commit[]> {
    return this.call({ method: 'GET', path: `/api/sessions/${seg(id)}/commits` }, commitList, options);
  }

  /** GET /api/sessions/compare?a=&b= (server extension, not in the spec). */
  async compareSessions(a: string, b: string, options?: CallOptions): Promise<T.SessionComparison> {
    return this.call({ method: 'GET', path: '/api/sessions/compare', query: { a, b } }, comparison, options);
  }

  async listTags(options?: CallOptions): Promise<T.Tag[]> {
    return this.call({ method: 'GET', path: '/api/tags' }, tagList, options);
  }

  /** POST /api/git-sync (202): starts an asynchronous commit sync, for one session's repository if given. */
  async syncGit(params: { sessionId?: string } = {}, options?: CallOptions): Promise<T.GitSyncResult> {
    return this.call(
      { method: 'POST', path: '/api/git-sync', query: { session_id: params.sessionId } },
      statusReply,
      options,
    );
  }
}
