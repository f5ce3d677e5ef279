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
  user_id: text.optional().describe('entries of this user; also userId'),
  userId: text.optional().describe('the same as user_id'),
  action_type: ActionTypeSchema.optional().describe('entries of this action type; also actionType'),
  actionType: ActionTypeSchema.optional().describe('the same as action_type'),
  policy_result: z
    .enum(POLICY_RESULTS)
    .optional()
    .describe('entries with this policy result; also policyResult'),
  policyResult: z.enum(POLICY_RESULTS).optional().describe('the same as policy_result'),
  request_id: text.optional().describe('entries of this request; also requestId'),
  requestId: text.optional().describe('the same as request_id'),
  from: from
    .optional()
    .describe('entries at or after this instant (RFC 3339; a bare date is the start of that day, UTC)'),
  to: to
    .optional()
    .describe('entries at or before this instant (RFC 3339; a bare date is the end of that day, UTC)'),
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
  /**
   * Extension: `snapshot=<n>`, the log as it was at position n — what the first page's
   * `X-Audit-Snapshot` header says — so the next pages neither repeat nor skip an entry.
   */
  snapshot?: number;
}

/**
 * The parameters of GET /audit as a URL carries them: the route's query schema, so the OpenAPI
 * document lists each one (`AuditQuerySchema` turns them into an `AuditQuery`).
 */
export const AuditQueryParams = z
  .object({
    ...filterShape,
    page: integer(1, MAX_PAGE).optional().describe('1-based page (default 1)'),
    page_size: integer(1, MAX_PAGE_SIZE)
      .optional()
      .describe(`entries per page, at most ${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE}); also pageSize`),
    pageSize: integer(1, MAX_PAGE_SIZE).optional().describe('the same as page_size'),
    order: z
      .enum(['asc', 'desc'])
      .optional()
      .describe('by position in the log: desc (default, newest first) or asc'),
    snapshot: integer(0, Number.MAX_SAFE_INTEGER)
      .optional()
      .describe(
        'the log as it was at this position (the X-Audit-Snapshot header of the first page): later pages neither repeat nor skip',
      ),
  })
  .superRefine((raw, ctx) => {
    refineFilter(raw, ctx);
    if (raw.page_size !== undefined && raw.pageSize !== undefined && raw.page_size !== raw.pageSize) {
      ctx.addIssue({ code: 'custom', path: ['pageSize'], message: 'conflicts with page_size' });
    }
  });

/** The parsed parameters of GET /audit → the query (defaults filled, spellings merged). */
export function toAuditQuery(raw: z.output<typeof AuditQueryParams>): AuditQuery {
  return {
    filter: toFilter(raw),
    page: raw.page ?? 1,
    pageSize: raw.page_size ?? raw.pageSize ?? DEFAULT_PAGE_SIZE,
    order: raw.order ?? 'desc',
    ...(raw.snapshot !== undefined ? { snapshot: raw.snapshot } : {}),
  };
}

export const AuditQuerySchema = AuditQueryParams.transform(toAuditQuery);

export interface AuditExportQuery {
  format: 'json' | 'csv';
  filter: AuditFilter;
}

/** The parameters of GET /audit/export as a URL carries them (the route's query schema). */
export const AuditExportQueryParams = z
  .object({
    ...filterShape,
    format: z.enum(['json', 'csv']).optional().describe('json (default) or csv'),
  })
  .superRefine(refineFilter);

/** The parsed parameters of GET /audit/export → the export query. */
export function toAuditExportQuery(raw: z.output<typeof AuditExportQueryParams>): AuditExportQuery {
  return { format: raw.format ?? 'json', filter: toFilter(raw) };
}

export const AuditExportQuerySchema = AuditExportQueryParams.transform(toAuditExportQuery);

/** Parses the raw query of GET /audit. */
export function parseAuditQuery(raw: unknown): Result<AuditQuery, ValidationError> {
  return parseWith(AuditQuerySchema, raw ?? {});
}

/** Parses the raw query of GET /audit/export. */
export function parseAuditExportQuery(raw: unknown): Result<AuditExportQuery, ValidationError> {
  return parseWith(AuditExportQuerySchema, raw ?? {});
}
