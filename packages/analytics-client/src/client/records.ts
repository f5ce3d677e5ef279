// Messages, tool calls and subagents (spec: "Message, tool call, subagent"), page by page or iterated,
// and the full-text search over message content.
import type { PageParams } from '../input/common';
import {
  type MessageFilter,
  messageFilter,
  messageListParams,
  type SearchOptions,
  type SubagentFilter,
  searchParams,
  subagentFilter,
  subagentListParams,
  type ToolCallFilter,
  toolCallFilter,
  toolCallListParams,
} from '../input/records';
import type { PageIterator } from '../paginate';
import type * as T from '../types';
import { messageList, subagentList, toolCallList } from '../wire/records';
import { ClientCore } from './core';
import type { CallOptions, IterateOptions } from './options';

export abstract class RecordsApi extends ClientCore {
  /** GET /api/messages, oldest first. */
  async listMessages(params: MessageFilter & PageParams = {}, options?: CallOptions): Promise<T.Message[]> {
    const query = this.input(messageListParams, params, 'GET /api/messages');
    return this.call({ method: 'GET', path: '/api/messages', query }, messageList, options);
  }

  iterateMessages(filter: MessageFilter = {}, options: IterateOptions = {}): PageIterator<T.Message> {
    this.input(messageFilter, filter, 'GET /api/messages');
    return this.iterator('GET /api/messages', options, async (limit, offset) => ({
      items: await this.listMessages({ ...filter, limit, offset }, options),
    }));
  }

  /** GET /api/tool-calls, oldest first. */
  async listToolCalls(
    params: ToolCallFilter & PageParams = {},
    options?: CallOptions,
  ): Promise<T.ToolCall[]> {
    const query = this.input(toolCallListParams, params, 'GET /api/tool-calls');
    return this.call({ method: 'GET', path: '/api/tool-calls', query }, toolCallList, options);
  }

  iterateToolCalls(filter: ToolCallFilter = {}, options: IterateOptions = {}): PageIterator<T.ToolCall> {
    this.input(toolCallFilter, filter, 'GET /api/tool-calls');
    return this.iterator('GET /api/tool-calls', options, async (limit, offset) => ({
      items: await this.listToolCalls({ ...filter, limit, offset }, options),
    }));
  }

  /** GET /api/subagents, oldest first. */
  async listSubagents(
    params: SubagentFilter & PageParams = {},
    options?: CallOptions,
  ): Promise<T.Subagent[]> {
    const query = this.input(subagentListParams, params, 'GET /api/subagents');
    return this.call({ method: 'GET', path: '/api/subagents', query }, subagentList, options);
  }

  iterateSubagents(filter: SubagentFilter = {}, options: IterateOptions = {}): PageIterator<T.Subagent> {
    this.input(subagentFilter, filter, 'GET /api/subagents');
    return this.iterator('GET /api/subagents', options, async (limit, offset) => ({
      items: await this.listSubagents({ ...filter, limit, offset }, options),
    }));
  }

  /**
   * GET /api/search: full-text search over message content (SQLite FTS syntax). `q` must not be
   * empty. A malformed query is a server 500, which is not retried. No match yields `[]`.
   */
  async search(q: string, params: SearchOptions = {}, options?: CallOptions): Promise<T.Message[]> {
    const query = this.input(searchParams, { ...params, q }, 'GET /api/search');
    return this.call({ method: 'GET', path: '/api/search', query }, messageList, options);
  }
}
