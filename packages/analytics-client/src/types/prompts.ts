// User prompts and their answers (server extension `/api/prompts`, not in the spec).
import type { Extra } from './common';
import type { MessageType } from './records';

export interface Prompt {
  id: string;
  sessionId: string;
  projectName: string;
  projectPath: string;
  preview: string;
  truncated: boolean;
  timestamp: Date | null;
  extra: Extra;
}

export interface PromptPage {
  prompts: Prompt[];
  /** Prompts matching the filter (all pages), as the server reported it; `undefined` when it did not. */
  total: number | undefined;
}

export interface PromptDetail {
  id: string;
  sessionId: string;
  projectName: string;
  projectPath: string;
  type: MessageType;
  role: string | null;
  contentText: string;
  timestamp: Date | null;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** The next assistant message, when there is one. */
  response: { preview: string; model: string | null; outputTokens: number } | null;
  extra: Extra;
}
