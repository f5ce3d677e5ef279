// User prompts and the answers to them (server extension `/api/prompts`, not in the spec).
import { type PageParams, pathId } from '../input/common';
import { type PromptFilter, promptFilter, promptListParams } from '../input/prompts';
import type { PageIterator } from '../paginate';
import type * as T from '../types';
import { promptDetail, promptPage } from '../wire/prompts';
import { ClientCore } from './core';
import type { CallOptions, IterateOptions } from './options';
import { seg } from './query';

export abstract class PromptsApi extends ClientCore {
  /** GET /api/prompts: user prompts, newest first (server extension; server default page size 20). */
  async listPrompts(params: PromptFilter & PageParams = {}, options?: CallOptions): Promise<T.PromptPage> {
    const query = this.input(promptListParams, params, 'GET /api/prompts');
    return this.call({ method: 'GET', path: '/api/prompts', query }, promptPage, options);
  }

  iteratePrompts(filter: PromptFilter = {}, options: IterateOptions = {}): PageIterator<T.Prompt> {
    this.input(promptFilter, filter, 'GET /api/prompts');
    return this.iterator('GET /api/prompts', options, async (limit, offset) => {
      const page = await this.listPrompts({ ...filter, limit, offset }, options);
      return { items: page.prompts, total: page.total };
    });
  }

  /** GET /api/prompts/{id}: the full prompt and the assistant's answer preview. */
  async getPrompt(id: string, options?: CallOptions): Promise<T.PromptDetail> {
    this.input(pathId, { id }, 'GET /api/prompts/{id}');
    return this.call({ method: 'GET', path: `/api/prompts/${seg(id)}` }, promptDetail, options);
  }
}
