// Messages, tool calls and subagents (spec: "Message, tool call, subagent"), page by page or iterated,
// and the full-text search over message content.
import type { PageIterator } from '../paginate';
import { checkOptionalInteger } from '../params';
import type * as T from '../types';
import { messageList, subagentList, toolCallList } from '../wire/records';
import { ClientCore } from './core';
import type { CallOptions, IterateOptions, PageParams } from './options';
import { pageQuery } from './query';

export interface MessageFilter {
  sessionId?: string;
  type?: 'user' | 'assistant';
}

export interface ToolCallFilter {
  sessionId?: string;
  toolName?: string;
}

export interface SubagentFilter {
  sessionId?: string;
}

export abstract class RecordsApi extends ClientCore {
  /** GET /api/messages, oldest first. */
  async listMessages(params: MessageFilter & PageParams = {}, options?: CallOptions): Promise<T.Message[]> {
    const query = { session_id: params.sessionId, type: params.type, ...pageQuery(params) };
    return this.call({ method: 'GET', path: '/api/messages', query }, messageList, options);
  }

  iterateMessages(filter: MessageFilter = {}, options: IterateOptions = {}): PageIterator<T.Message> {
    return this.iterator(options, async (limit, offset) => ({
      items: await this.listMessages({ ...filter, limit, offset }, options),
    }));
  }

  /** GET /api/tool-calls, oldest first. */
  async listToolCalls(
    params: ToolCallFilter & PageParams = {},
    options?: CallOptions,
  ): Promise<T.ToolCall[]> {
    const query = { session_id: params.sessionId, tool_name: params.toolName, ...pageQuery(params) };
    return this.call({ method: 'GET', path: '/api/tool-calls', query }, toolCallList, options);
  }

  iterateToolCalls(filter: ToolCallFilter = {}, options: IterateOptions = {}): PageIterator<T.ToolCall> {
    return this.iterator(options, async (limit, offset) => ({
      items: await this.listToolCalls({ ...filter, limit, offset }, options),
    }));
  }

  /** GET /api/subagents, oldest first. */
  async listSubagents(
    params: SubagentFilter & PageParams = {},
    options?: CallOptions,
  ): Promise<T.Subagent[]> {
    const query = { session_id: params.sessionId, ...pageQuery(params) };
    return this.call({ method: 'GET', path: '/api/subagents', query }, subagentList, options);
  }

  iterateSubagents(filter: SubagentFilter = {}, options: IterateOptions = {}): PageIterator<T.Subagent> {
    return this.iterator(options, async (limit, offset) => ({
      items: await this.listSubagents({ ...filter, limit, offset }, options),
    }));
  }

  /**
   * GET /api/search: full-text search over message content (SQLite FTS syntax; a malformed query
   * is a server 500, which is retried like any 5xx). No match yields `[]` (wire: `null`).
   */
  async search(q: string, params: { limit?: number } = {}, options?: CallOptions): Promise<T.Message[]> {
    const limit = checkOptionalInteger('limit', params.limit, 1);
    return this.call({ method: 'GET', path: '/api/search', query: { q, limit } }, messageList, options);
  }
}
