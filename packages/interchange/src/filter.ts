/**
 * Classification filtering: a small public function other packages reuse. Items at or below the
 * ceiling are kept; the rest are withheld with reason `classification_exceeded` (spec: Exchange,
 * dataWithheld). Order is preserved on both sides.
 */
import {
  type ClassificationLevel,
  classificationOrder,
  type Exchange,
  maxClassification,
} from '@agentgov/core';

export const CLASSIFICATION_EXCEEDED = 'classification_exceeded';

export interface WithheldItem<T> {
  item: T;
  reason: typeof CLASSIFICATION_EXCEEDED;
  description: string;
}

export interface FilterResult<T> {
  kept: T[];
  withheld: WithheldItem<T>[];
}

/** Splits `items` by `ceiling`: kept (level ≤ ceiling) and withheld with a reason. */
export function filterByClassification<T extends { classification: ClassificationLevel }>(
  items: readonly T[],
  ceiling: ClassificationLevel,
  describe: (item: T) => string = (item) => `${item.classification} item`,
): FilterResult<T> {
  const limit = classificationOrder(ceiling);
  const kept: T[] = [];
  const withheld: WithheldItem<T>[] = [];
  for (const item of items) {
    if (classificationOrder(item.classification) <= limit) kept.push(item);
    else
      withheld.push({
        item,
        reason: CLASSIFICATION_EXCEEDED,
        description: `${describe(item)} is ${item.classification}, above ${ceiling}`,
      });
  }
  return { kept, withheld };
}

/** `dataShared` of the spec: the kept items grouped by source, fields in first-seen order. */
export function summarizeShared(items: readonly { source: string; field: string }[]): Exchange['dataShared'] {
  const bySource = new Map<string, string[]>();
  for (const { source, field } of items) {
    const fields = bySource.get(source) ?? [];
    if (!fields.includes(field)) fields.push(field);
    bySource.set(source, fields);
  }
  return [...bySource].map(([source, fields]) => ({ source, fields }));
}

/** `dataWithheld` of the spec: `{reason, description}` per withheld item. */
export function summarizeWithheld(withheld: readonly WithheldItem<unknown>[]): Exchange['dataWithheld'] {
  return withheld.map(({ reason, description }) => ({ reason, description }));
}

/** The highest level among `items` (`public` when there are none). */
export function highestLevel(items: readonly { classification: ClassificationLevel }[]): ClassificationLevel {
  return items.reduce<ClassificationLevel>((acc, i) => maxClassification(acc, i.classification), 'public');
}
