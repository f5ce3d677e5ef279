// Sessions (spec: Session, Timeline, Tag): list, detail, notes and tags, timeline, linked git commits
// and their sync, tags in use, and the server's session comparison.
import { pathId } from '../input/common';
import {
  type GitSyncParams,
  gitSyncParams,
  type SessionFilter,
  type SessionListParams,
  sessionFilter,
  sessionListParams,
  sessionPair,
  sessionUpdate,
} from '../input/sessions';
import type { PageIterator } from '../paginate';
import type * as T from '../types';
import { statusReply } from '../wire/common';
import { commitList, comparison, patchResult, sessionDetail, sessionPage, tagList } from '../wire/sessions';
import { timeline } from '../wire/timeline';
import { ClientCore } from './core';
import type { CallOptions, IterateOptions } from './options';
import { seg } from './query';

export abstract class SessionsApi extends ClientCore {
  /**
   * GET /api/sessions: one page of sessions, newest first, with the total count. `model` and
   * `search` are sent as the spec says, but the current server ignores both.
   */
  async listSessions(params: SessionListParams = {}, options?: CallOptions): Promise<T.SessionPage> {
    const query = this.input(sessionListParams, params, 'GET /api/sessions');
    return this.call({ method: 'GET', path: '/api/sessions', query }, sessionPage, options);
  }

  /** Every session matching the filter, fetched page by page (up to the reported `total`). */
  iterateSessions(filter: SessionFilter = {}, options: IterateOptions = {}): PageIterator<T.Session> {
    this.input(sessionFilter, filter, 'GET /api/sessions');
    return this.iterator('GET /api/sessions', options, async (limit, offset) => {
      const page = await this.listSessions({ ...filter, limit, offset }, options);
      return { items: page.sessions, total: page.total };
    });
  }

  /** GET /api/sessions/{id}: metadata, messages, tool calls, subagents (server caps each list at 1000). */
  async getSession(id: string, options?: CallOptions): Promise<T.SessionDetail> {
    this.input(pathId, { id }, 'GET /api/sessions/{id}');
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
    const { body } = this.input(sessionUpdate, { ...update, id }, 'PATCH /api/sessions/{id}');
    return this.call({ method: 'PATCH', path: `/api/sessions/${seg(id)}`, body }, patchResult, options);
  }

  /** GET /api/sessions/{id}/timeline. An unknown id yields an empty timeline (server behaviour). */
  async getTimeline(id: string, options?: CallOptions): Promise<T.Timeline> {
    this.input(pathId, { id }, 'GET /api/sessions/{id}/timeline');
    return this.call({ method: 'GET', path: `/api/sessions/${seg(id)}/timeline` }, timeline, options);
  }

  /** GET /api/sessions/{id}/commits: git commits linked to the session. */
  async getCommits(id: string, options?: CallOptions): Promise<T.Commit[]> {
    this.input(pathId, { id }, 'GET /api/sessions/{id}/commits');
    return this.call({ method: 'GET', path: `/api/sessions/${seg(id)}/commits` }, commitList, options);
  }

  /** GET /api/sessions/compare?a=&b= (server extension, not in the spec). */
  async compareSessions(a: string, b: string, options?: CallOptions): Promise<T.SessionComparison> {
    const query = this.input(sessionPair, { a, b }, 'GET /api/sessions/compare');
    return this.call({ method: 'GET', path: '/api/sessions/compare', query }, comparison, options);
  }

  async listTags(options?: CallOptions): Promise<T.Tag[]> {
    return this.call({ method: 'GET', path: '/api/tags' }, tagList, options);
  }

  /**
   * POST /api/git-sync (202): starts an asynchronous commit sync, for one session's repository if
   * given. Not retried unless `retry.nonIdempotent`.
   */
  async syncGit(params: GitSyncParams = {}, options?: CallOptions): Promise<T.GitSyncResult> {
    const query = this.input(gitSyncParams, params, 'POST /api/git-sync');
    return this.call({ method: 'POST', path: '/api/git-sync', query }, statusReply, options);
  }
}
