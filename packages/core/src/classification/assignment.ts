import {
  type ClassificationLevel,
  CONNECTOR_DEFAULT_CLASSIFICATION,
  type ConnectorType,
  compareClassification,
} from '../classification-lattice';
import type { DataClassification } from './schema';

/**
 * The three layers of classification (spec: DataClassification): (1) the connector default,
 * (2) AI reclassification, which may only raise the level, (3) admin override, which may set any
 * level and records who and why.
 */
export function classifyByConnector(
  tenantId: string,
  dataRef: string,
  connector: ConnectorType | { type: ConnectorType; defaultClassification?: ClassificationLevel },
  now: Date,
): DataClassification {
  const level =
    typeof connector === 'string'
      ? CONNECTOR_DEFAULT_CLASSIFICATION[connector]
      : (connector.defaultClassification ?? CONNECTOR_DEFAULT_CLASSIFICATION[connector.type]);
  return {
    tenantId,
    dataRef,
    level,
    assignedBy: 'connector_default',
    originalLevel: null,
    overrideBy: null,
    overrideReason: null,
    assessedAt: now.toISOString(),
  };
}

/**
 * Applies an AI reclassification. A proposal above the current level raises it; a proposal at or
 * below it changes nothing (the current record is returned as is). An admin override is final
 * for AI: a record assigned by `admin_override` is never changed by AI.
 */
export function reclassifyByAi(
  current: DataClassification,
  proposed: ClassificationLevel,
  now: Date,
): DataClassification {
  if (current.assignedBy === 'admin_override') return current;
  if (compareClassification(proposed, current.level) <= 0) return current;
  return {
    ...current,
    level: proposed,
    assignedBy: 'ai_reclassification',
    originalLevel: current.originalLevel ?? current.level,
    assessedAt: now.toISOString(),
  };
}

/** Applies an admin override: any level, with the admin's id and reason recorded. */
export function overrideClassification(
  current: DataClassification,
  level: ClassificationLevel,
  admin: { userId: string; reason: string },
  now: Date,
): DataClassification {
  return {
    ...current,
    level,
    assignedBy: 'admin_override',
    originalLevel: current.originalLevel ?? current.level,
    overrideBy: admin.userId,
    overrideReason: admin.reason,
    assessedAt: now.toISOString(),
  };
}
