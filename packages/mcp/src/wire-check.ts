/**
 * Fast paths for the two SDK schemas every proxied `tools/call` is validated against:
 * `CallToolRequestParamsSchema` (the request's params, in `serve.ts`) and `CallToolResultSchema`
 * (the upstream's result, in `forward.ts`). zod's parse of a record costs more than the rest of
 * the check (a key schema run per key, a plain-object test, an issues array per value): for the
 * common plain shapes — params of a name and plain-object arguments, a result of text content
 * with optional structured content and `isError` — these functions build the very value the SDK
 * schema gives, and answer `undefined` for anything else, which the caller then hands to the SDK
 * schema itself. The schema stays the one source of truth: `test/wire-check.test.ts` checks with
 * fast-check that whenever a fast path answers, the schema accepts the input and gives an equal
 * value (same keys, same order).
 */
import type { CallToolRequest, CallToolResult } from '@modelcontextprotocol/sdk/types.js';

const isPlain = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;

/**
 * A copy of a plain object of string keys (what `z.record(z.string(), z.unknown())` gives), or
 * undefined when zod must decide (symbol keys, another prototype, an own `__proto__` — which zod
 * leaves out — or an own `constructor`, which zod's plain-object test looks at).
 */
function recordCopy(v: unknown): Record<string, unknown> | undefined {
  if (!isPlain(v)) return undefined;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(v)) {
    if (key === '__proto__' || key === 'constructor') return undefined;
    out[key] = v[key];
  }
  if (Object.getOwnPropertySymbols(v).length > 0) return undefined;
  return out;
}

/** `CallToolRequestParamsSchema`'s value for `{ name, arguments? }` params; undefined: ask zod. */
export function fastCallParams(params: unknown): CallToolRequest['params'] | undefined {
  if (!isPlain(params) || '_meta' in params || 'task' in params) return undefined;
  const { name, arguments: args } = params;
  if (typeof name !== 'string') return undefined;
  if (args === undefined) return 'arguments' in params ? undefined : { name };
  const copy = recordCopy(args);
  return copy && { name, arguments: copy };
}

/** The value of one text content block `{ type: 'text', text }`; undefined: ask zod. */
function textBlock(v: unknown): { type: 'text'; text: string } | undefined {
  if (!isPlain(v)) return undefined;
  let n = 0;
  for (const key in v) {
    if (key !== 'type' && key !== 'text') return undefined;
    n++;
  }
  return n === 2 && v.type === 'text' && typeof v.text === 'string'
    ? { type: 'text', text: v.text }
    : undefined;
}

/**
 * `CallToolResultSchema`'s value for a result of `content` (text blocks only), optional
 * `structuredContent` and optional `isError`, nothing else; undefined: ask zod.
 */
export function fastCallResult(result: unknown): CallToolResult | undefined {
  if (!isPlain(result)) return undefined;
  let content: { type: 'text'; text: string }[] | undefined;
  let structured: Record<string, unknown> | undefined;
  let hasStructured = false;
  let hasIsError = false;
  for (const key in result) {
    if (key === 'content') {
      const list = result.content;
      if (!Array.isArray(list) || Object.getPrototypeOf(list) !== Array.prototype) return undefined;
      content = new Array(list.length);
      for (let i = 0; i < list.length; i++) {
        const block = textBlock(list[i]);
        if (!block) return undefined;
        content[i] = block;
      }
    } else if (key === 'structuredContent') {
      hasStructured = true;
      if (result.structuredContent !== undefined) {
        structured = recordCopy(result.structuredContent);
        if (!structured) return undefined;
      }
    } else if (key === 'isError') {
      hasIsError = true;
      if (result.isError !== undefined && typeof result.isError !== 'boolean') return undefined;
    } else return undefined;
  }
  if (!content) return undefined;
  const out: CallToolResult = { content };
  if (hasStructured) out.structuredContent = structured;
  if (hasIsError) out.isError = result.isError as boolean | undefined;
  return out;
}
