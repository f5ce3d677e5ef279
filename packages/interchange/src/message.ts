/** What an exchange carries besides its envelope: text, classified data items, an optional commitment. */
import { ClassificationLevelSchema } from '@agentgov/core';
import { z } from 'zod';
import { MAX_VALUE_DEPTH, valueDepthOk } from './json-depth';

/** One piece of data with its classification: `source` (e.g. `calendar`), `field`, level, value. */
export const ClassifiedItemSchema = z.object({
  source: z.string().min(1).max(255),
  field: z.string().min(1).max(255),
  classification: ClassificationLevelSchema,
  value: z.unknown().refine(valueDepthOk, `nests deeper than ${MAX_VALUE_DEPTH} levels`),
});
export type ClassifiedItem = z.infer<typeof ClassifiedItemSchema>;

/** A promise to act (accept a meeting, take on work): only a human may make one. */
export const CommitmentSchema = z.object({
  action: z.string().min(1).max(255),
  detail: z.string().max(4096).optional(),
});
export type Commitment = z.infer<typeof CommitmentSchema>;

export const ExchangeMessageSchema = z.object({
  text: z.string().max(16_384),
  items: z.array(ClassifiedItemSchema).max(10_000).default([]),
  commitment: CommitmentSchema.optional(),
});
export type ExchangeMessage = z.infer<typeof ExchangeMessageSchema>;
export type ExchangeMessageInput = z.input<typeof ExchangeMessageSchema>;
