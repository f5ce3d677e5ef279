// Wire mapping of user prompts (server extension `/api/prompts`, not in the spec).
import { z } from 'zod';
import type * as T from '../types';
import {
  arr,
  bool,
  decoder,
  extraOf,
  list,
  n,
  num,
  nz,
  optStr,
  s,
  text,
  timestamp,
  toDate,
} from './primitives';

const wirePrompt = z
  .object({
    id: z.string(),
    session_id: text,
    project_name: text,
    project_path: text,
    preview: text,
    truncated: bool,
    timestamp: timestamp,
  })
  .loose();
export const promptPage = decoder(
  z.object({ prompts: list(wirePrompt), total: num }).loose(),
  (w): T.PromptPage => {
    const prompts = arr(w.prompts, (p) => ({
      id: p.id,
      sessionId: s(p.session_id),
      projectName: s(p.project_name),
      projectPath: s(p.project_path),
      preview: s(p.preview),
      truncated: p.truncated ?? false,
      timestamp: toDate(p.timestamp),
      extra: extraOf(p, wirePrompt),
    }));
    // Only what the server reported (see `sessionPage`).
    return { prompts, total: w.total ?? undefined };
  },
);

const wirePromptDetail = z
  .object({
    id: z.string(),
    session_id: text,
    project_name: text,
    project_path: text,
    type: text,
    role: optStr,
    content_text: text,
    timestamp: timestamp,
    input_tokens: num,
    output_tokens: num,
    cache_read_tokens: num,
    cache_write_tokens: num,
    response_preview: z.string().optional(),
    response_model: optStr,
    response_output_tokens: num,
  })
  .loose();
export const promptDetail = decoder(
  wirePromptDetail,
  (w): T.PromptDetail => ({
    id: w.id,
    sessionId: s(w.session_id),
    projectName: s(w.project_name),
    projectPath: s(w.project_path),
    type: s(w.type),
    role: nz(w.role),
    contentText: s(w.content_text),
    timestamp: toDate(w.timestamp),
    inputTokens: n(w.input_tokens),
    outputTokens: n(w.output_tokens),
    cacheReadTokens: n(w.cache_read_tokens),
    cacheWriteTokens: n(w.cache_write_tokens),
    response:
      w.response_preview === undefined
        ? null
        : {
            preview: w.response_preview,
            model: nz(w.response_model),
            outputTokens: n(w.response_output_tokens),
          },
    extra: extraOf(w, wirePromptDetail),
  }),
);
