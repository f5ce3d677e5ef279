/**
 * Correlation of a newly discovered item with the user's open tasks. The score (0–1) is the
 * largest of:
 * - 1.0 when the item has the same source (system + id) or the same non-empty URL as the task;
 * - 0.9 when they share a ticket reference (`ABC-123`) in title or description;
 * - 0.7 × title similarity + 0.2 × description similarity + 0.1 when the deadlines fall on the same
 *   UTC day (0.9 × title similarity when either side has no description), where similarity is the
 *   Jaccard index of the word sets (words of 3+ letters, minus a few stop words, lower-cased).
 * Thresholds (spec): >= 0.8 merge as duplicate, 0.5 to below 0.8 flag for review, < 0.5 separate.
 */
import { CORRELATION_THRESHOLDS, type Task } from '@agentgov/core';

export type CorrelationAction = 'merge' | 'review' | 'separate';

export interface CorrelationCandidate {
  system: string;
  id: string;
  url?: string | undefined;
  title: string;
  description?: string | undefined;
  deadline?: string | null | undefined;
}

export interface Correlation {
  taskId: string;
  score: number;
  action: CorrelationAction;
  /** Why, in words: which signals produced the score. */
  reasons: string[];
}

const STOP = new Set([
  'the',
  'and',
  'for',
  'with',
  'from',
  'this',
  'that',
  'into',
  'onto',
  'are',
  'was',
  'our',
  'your',
  'please',
  'fwd',
  'were',
]);
const REF_RE = /\b[A-Z][A-Z0-9]{1,9}-\d+\b/g;

function words(text: string | undefined): Set<string> {
  return new Set(
    (text ?? '')
      .toLowerCase()
      .match(/\p{L}[\p{L}\p{N}]{2,}/gu)
      ?.filter((w) => !STOP.has(w)) ?? [],
  );
}

function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let common = 0;
  for (const w of a) if (b.has(w)) common++;
  return common / (a.size + b.size - common);
}

export function correlationAction(score: number): CorrelationAction {
  if (score >= CORRELATION_THRESHOLDS.autoMerge) return 'merge';
  if (score >= CORRELATION_THRESHOLDS.review) return 'review';
  return 'separate';
}

/** The score of `item` against one task, with its reasons. */
export function correlationScore(
  item: CorrelationCandidate,
  task: Task,
): { score: number; reasons: string[] } {
  if (task.sources.some((s) => s.system === item.system && s.id === item.id))
    return { score: 1, reasons: [`same source ${item.system}:${item.id}`] };
  if (item.url && task.sources.some((s) => s.url !== '' && s.url === item.url))
    return { score: 1, reasons: [`same URL ${item.url}`] };
  const refsOf = (t: string | undefined) => new Set(t?.match(REF_RE) ?? []);
  const mine = new Set([...refsOf(item.title), ...refsOf(item.description)]);
  const shared = [...new Set([...refsOf(task.title), ...refsOf(task.description)])].filter((r) =>
    mine.has(r),
  );
  const title = jaccard(words(item.title), words(task.title));
  const desc = jaccard(words(item.description), words(task.description));
  const sameDay =
    !!item.deadline && !!task.deadline && item.deadline.slice(0, 10) === task.deadline.slice(0, 10);
  const bothDescribed = !!item.description?.trim() && !!task.description.trim();
  const text = Math.min(1, (bothDescribed ? 0.7 * title + 0.2 * desc : 0.9 * title) + (sameDay ? 0.1 : 0));
  const reasons = [`title similarity ${title.toFixed(2)}`];
  if (bothDescribed) reasons.push(`description similarity ${desc.toFixed(2)}`);
  if (sameDay) reasons.push('deadlines on the same day');
  if (shared.length > 0 && 0.9 >= text)
    return { score: 0.9, reasons: [`shared ticket reference ${shared.join(', ')}`, ...reasons] };
  return { score: Math.round(text * 1000) / 1000, reasons };
}

/** The best-scoring task for `item` among `tasks`, or undefined when there are none. */
export function correlate(item: CorrelationCandidate, tasks: readonly Task[]): Correlation | undefined {
  let best: Correlation | undefined;
  for (const t of tasks) {
    const { score, reasons } = correlationScore(item, t);
    if (!best || score > best.score)
      best = { taskId: t.id, score, action: correlationAction(score), reasons };
  }
  return best;
}
