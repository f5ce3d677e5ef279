/** DataClassification resource (spec: DataClassification). The level lattice is `../classification.ts`. */
import { z } from 'zod';
import { CLASSIFICATION_SOURCES, ClassificationLevelSchema } from '../classification-lattice';
import { TenantIdSchema, Timestamp } from '../vocabulary';

export const DataClassificationSchema = z.object({
  tenantId: TenantIdSchema,
  dataRef: z.string().min(1).max(1024),
  level: ClassificationLevelSchema,
  assignedBy: z.enum(CLASSIFICATION_SOURCES),
  originalLevel: ClassificationLevelSchema.nullable().default(null),
  overrideBy: z.string().nullable().default(null),
  overrideReason: z.string().nullable().default(null),
  assessedAt: Timestamp,
});
export type DataClassification = z.infer<typeof DataClassificationSchema>;
