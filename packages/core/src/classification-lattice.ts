import { z } from 'zod';

/** Classification levels, lowest to highest sensitivity (spec: "Classification levels"). */
export const CLASSIFICATION_LEVELS = ['public', 'internal', 'confidential', 'restricted'] as const;
export type ClassificationLevel = (typeof CLASSIFICATION_LEVELS)[number];
export const ClassificationLevelSchema = z.enum(CLASSIFICATION_LEVELS);

const ORDER: Readonly<Record<ClassificationLevel, number>> = {
  public: 0,
  internal: 1,
  confidential: 2,
  restricted: 3,
};

/** The order of a level: public 0, internal 1, confidential 2, restricted 3. */
export function classificationOrder(level: ClassificationLevel): number {
  return ORDER[level];
}

/** Negative when `a` is less sensitive than `b`, 0 when equal, positive when more sensitive. */
export function compareClassification(a: ClassificationLevel, b: ClassificationLevel): number {
  return ORDER[a] - ORDER[b];
}

/** The less sensitive of the levels (the lattice meet for "max shareable" limits). */
export function minClassification(
  first: ClassificationLevel,
  ...rest: ClassificationLevel[]
): ClassificationLevel {
  return rest.reduce((acc, l) => (ORDER[l] < ORDER[acc] ? l : acc), first);
}

/** The more sensitive of the levels (the highest level involved). */
export function maxClassification(
  first: ClassificationLevel,
  ...rest: ClassificationLevel[]
): ClassificationLevel {
  return rest.reduce((acc, l) => (ORDER[l] > ORDER[acc] ? l : acc), first);
}

/** True when data at `level` may pass a limit of `limit`. */
export function isWithinClassification(level: ClassificationLevel, limit: ClassificationLevel): boolean {
  return ORDER[level] <= ORDER[limit];
}

export const CONNECTOR_TYPES = ['mail', 'calendar', 'tracker', 'codehost', 'drive'] as const;
export type ConnectorType = (typeof CONNECTOR_TYPES)[number];
export const ConnectorTypeSchema = z.enum(CONNECTOR_TYPES);

/** Default classification by connector type (spec: Connector, "Default classification by type"). */
export const CONNECTOR_DEFAULT_CLASSIFICATION: Readonly<Record<ConnectorType, ClassificationLevel>> = {
  mail: 'internal',
  calendar: 'internal',
  tracker: 'internal',
  codehost: 'public',
  drive: 'internal',
};

export const CLASSIFICATION_SOURCES = ['connector_default', 'ai_reclassification', 'admin_override'] as const;
export type ClassificationSource = (typeof CLASSIFICATION_SOURCES)[number];
