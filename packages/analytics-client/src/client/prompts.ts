// User prompts and the answers to them (server extension `/api/prompts`, not in the spec).
import type { PageIterator } from '../paginate';
import { checkOptionalInteger } from '../params';
import type * as T from '../types';
import { promptDetail, promptPage } from '../wire/prompts';
import { ClientCore } from './core';
import type { CallOptions, IterateOptions, PageParams } from './options';
import { pageQuery, seg } from './query';

export interface PromptFilter {
  project?: string;
  sessionId?: string;
  /** Preview length in characters (server default 200). */
  previewLength?: number;
}

export abstract class PromptsApi extends ClientCore {
  /** GET /api/prompts: user prompts, newest first (server extension; server default page size 20). */
  async listPrompts(params: PromptFilter & PageParams = {}, options?: CallOptions): Promise<T.PromptPage> {
    const query = {
      project: params.project,
      session_id: params.sessionId,
      preview_len: checkOptionalInteger('previewLength', params.previewLength, 1),
      ...pageQuery(params),
    };
    return this.call({ method: 'GET', path: '/api/prompts', query }, promptPage, options);
  }

  iteratePrompts(filter: PromptFilter = {}, options: IterateOptions = {}): PageIterator<T.Prompt> {
    return this.iterator(options, async (limit, offset) => {
      const page = await this.listPrompts({ ...filter, limit, offset }, options);
      return { items: page.prompts, total: page.total };
    });
  }

  /** GET /api/prompts/{id}: the full prompt and the assistant's answer preview. */
  async getPrompt(id: string, options?: CallOptions): Promise<T.PromptDetail> {
    return this.call({ method: 'GET', path: `/api/prompts/${seg(id)}` }, promptDetail, options);
  }
}
