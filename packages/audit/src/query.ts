/**
 * Parsers of the raw query objects of GET /audit and GET /audit/export (string values as they
 * come from a URL). Both spellings of each filter are accepted; a conflict between them, an
 * unknown enum value, a malformed date or a page_size above 1000 is a 400 invalid_type naming
 * the parameter — so is a date that, once in UTC, falls outside the years 0001–9999 (core's
 * `parseInstant`). Unknown parameters are ignored.
 */
import {
  ActionTypeSchema,
  type AuditFilter,
  instantSchema,
  POLICY_RESULTS,
  parseWith,
  type Result,
  type ValidationError,
} from '@agentgov/core';
import { z } from 'zod';

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;
/** Upper bound of `page` (keeps offsets safe integers and SQL OFFSETs sane). */
export const MAX_PAGE = 1_000_000;

const text = z.string().min(1, 'must not be empty').max(255);
const integer = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,16}$/, 'must be a positive integer')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

/**
 * `from`/`to`: core's one instant parser — converted to UTC, then bounded to the years 0001–9999
 * (a 400 otherwise, never a store error); a bare date is the start (`from`) or end (`to`) of
 * that day, UTC. The output is the canonical UTC form, so bounds compare as strings.
 */
const from = instantSchema({ bound: 'start' });
const to = instantSchema({ bound: 'end' });

const filterShape = {
  user_id: text.optional(),
  userId: text.optional(),
  action_type: ActionTypeSchema.optional(),
  actionType: ActionTypeSchema.optional(),
  policy_result: z.enum(POLICY_RESULTS).optional(),
  policyResult: z.enum(POLICY_RESULTS).optional(),
  request_id: text.optional(),
  requestId: text.optional(),
  from: from.optional(),
  to: to.optional(),
};

/** [snake_case, camelCase] spellings of each filter. */
const SPELLINGS = [
  ['user_id', 'userId'],
  ['action_type', 'actionType'],
  ['policy_result', 'policyResult'],
  ['request_id', 'requestId'],
] as const;

type RawFilter = { [K in keyof typeof filterShape]?: z.output<(typeof filterShape)[K]> };

function refineFilter(raw: RawFilter, ctx: z.RefinementCtx): void {
  for (const [snake, camel] of SPELLINGS) {
    const a = raw[snake];
    const b = raw[camel];
    if (a !== undefined && b !== undefined && a !== b) {
      ctx.addIssue({ code: 'custom', path: [camel], message: `conflicts with ${snake}` });
    }
  }
  if (raw.from !== undefined && raw.to !== undefined && raw.from > raw.to) {
    ctx.addIssue({ code: 'custom', path: ['to'], message: 'must not be before from' });
  }
}

function toFilter(raw: RawFilter): AuditFilter {
  const filter: AuditFilter = {};
  const userId = raw.user_id ?? raw.userId;
  const actionType = raw.action_type ?? raw.actionType;
  const policyResult = raw.policy_result ?? raw.policyResult;
  const requestId = raw.request_id ?? raw.requestId;
  if (userId !== undefined) filter.userId = userId;
  if (actionType !== undefined) filter.actionType = actionType;
  if (policyResult !== undefined) filter.policyResult = policyResult;
  if (requestId !== undefined) filter.requestId = requestId;
  if (raw.from !== undefined) filter.from = raw.from;
  if (raw.to !== undefined) filter.to = raw.to;
  return filter;
}

export interface AuditQuery {
  filter: AuditFilter;
  /** 1-based. */
  page: number;
  pageSize: number;
  /** Extension: `order=asc|desc` by position in the log; default desc (newest first). */
  order: 'asc' | 'desc';
}

export const AuditQuerySchema = z
  .object({
    ...filterShape,
    page: integer(1, MAX_PAGE).optional(),
    page_size: integer(1, MAX_PAGE_SIZE).optional(),
    pageSize: integer(1, MAX_PAGE_SIZE).optional(),
    order: z.enum(['asc', 'desc']).optional(),
  })
  .superRefine((raw, ctx) => {
    refineFilter(raw, ctx);
    if (raw.page_size !== undefined && raw.pageSize !== undefined && raw.page_size !== raw.pageSize) {
      ctx.addIssue({ code: 'custom', path: ['pageSize'], message: 'conflicts with page_size' });
    }
  })
  .transform(
    (raw): AuditQuery => ({
      filter: toFilter(raw),
      page: raw.page ?? 1,
      pageSize: raw.page_size ?? raw.pageSize ?? DEFAULT_PAGE_SIZE,
      order: raw.order ?? 'desc',
    }),
  );

export interface AuditExportQuery {
  format: 'json' | 'csv';
  filter: AuditFilter;
}

export const AuditExportQuerySchema = z
  .object({ ...filterShape, format: z.enum(['json', 'csv']).optional() })
  .superRefine(refineFilter)
  .transform((raw): AuditExportQuery => ({ format: raw.format ?? 'json', filter: toFilter(raw) }));

/** Parses the raw query of GET /audit. */
export function parseAuditQuery(raw: unknown): Result<AuditQuery, ValidationError> {
  return parseWith(AuditQuerySchema, raw ?? {});
}

/** Parses the raw query of GET /audit/export. */
export function parseAuditExportQuery(raw: unknown): Result<AuditExportQuery, ValidationError> {
  return parseWith(AuditExportQuerySchema, raw ?? {});
}
