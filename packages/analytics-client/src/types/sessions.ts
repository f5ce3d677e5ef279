// Sessions (spec: Session, Tag; plus the server's active-sessions and compare extensions) and their commits.
import type { Extra } from './common';
import type { Message, Subagent, ToolCall } from './records';
import type { Breakdown, Trend } from './stats';

export interface Session {
  id: string;
  projectPath: string;
  projectName: string;
  cwd: string | null;
  gitBranch: string | null;
  /** `null` when the server has no start time (empty or Go zero time). */
  startedAt: Date | null;
  /** `null` while the session runs (wire: `""` in lists, omitted in detail). */
  endedAt: Date | null;
  claudeVersion: string | null;
  entryPoint: string | null;
  permissionMode: string | null;
  totalInputTokens: number;
  totalOutputTokens: number;
  totalCacheReadTokens: number;
  totalCacheWriteTokens: number;
  estimatedCostUsd: number;
  notes: string;
  /** Wire: comma-separated string. */
  tags: string[];
  extra: Extra;
}

export interface SessionPage {
  sessions: Session[];
  /** Sessions matching the filter (all pages), as the server reported it; `undefined` when it did not. */
  total: number | undefined;
}

export interface SessionDetail {
  session: Session;
  messages: Message[];
  toolCalls: ToolCall[];
  subagents: Subagent[];
  extra: Extra;
}

/** `updateSession` input; inferred from its zod schema (`src/input/sessions.ts`). */
export type { SessionUpdate } from '../input/sessions';

export interface SessionPatchResult {
  id: string;
  notes: string;
  tags: string[];
  extra: Extra;
}

export interface Commit {
  hash: string;
  message: string;
  author: string;
  filesChanged: number;
  insertions: number;
  deletions: number;
  committedAt: Date | null;
  extra: Extra;
}

export interface ActiveSession {
  id: string;
  projectPath: string;
  projectName: string;
  cwd: string | null;
  gitBranch: string | null;
  startedAt: Date | null;
  endedAt: Date | null;
  claudeVersion: string | null;
  totalInputTokens: number;
  totalOutputTokens: number;
  estimatedCostUsd: number;
  lastActivity: Date | null;
  recentToolCalls: number;
  extra: Extra;
}

export interface CompareSide {
  session: Session;
  /** camelCased metric name -> value (`cost`, `totalTokens`, `cacheHitRate`, ...). */
  metrics: Record<string, number>;
  breakdown: Breakdown;
  /** camelCased segment -> percentage (`assistantPct`, `userInputPct`, ...). */
  timeSegments: Record<string, number>;
  extra: Extra;
}

export interface SessionComparison {
  sessionA: CompareSide;
  sessionB: CompareSide;
  deltas: Record<string, { deltaPct: number; trend: Trend }>;
  extra: Extra;
}

export interface Tag {
  name: string;
  count: number;
  extra: Extra;
}

export interface GitSyncResult {
  status: 'syncing' | (string & {});
}
