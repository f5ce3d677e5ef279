// Input schemas of the prompts endpoints (server extension `/api/prompts`, not in the spec).
import { z } from 'zod';
import { optionalText, pageShape, type Query } from './common';

const promptFilterShape = {
  project: optionalText,
  sessionId: optionalText,
  /** Preview length in characters (server default 200). */
  previewLength: z
    .number({ error: 'must be a number' })
    .int({ error: 'must be an integer' })
    .min(1, { error: 'must be >= 1' })
    .optional(),
};

const toQuery = (v: {
  project?: string;
  sessionId?: string;
  previewLength?: number;
  limit?: number;
  offset?: number;
}): Query => ({
  project: v.project,
  session_id: v.sessionId,
  preview_len: v.previewLength,
  limit: v.limit,
  offset: v.offset,
});

export const promptFilter = z.strictObject(promptFilterShape).transform(toQuery);
export const promptListParams = z.strictObject({ ...promptFilterShape, ...pageShape }).transform(toQuery);

export type PromptFilter = z.input<typeof promptFilter>;
