/**
 * The policy editor's checks as you type: YAML syntax, then the published JSON Schema of a policy
 * file (`@agentgov/policy/policy-file.schema.json`, validated by @cfworker/json-schema — no code
 * generation, so no `unsafe-eval` in the page's CSP), each error placed on its line.
 */

import schema from '@agentgov/policy/policy-file.schema.json';
import { Validator } from '@cfworker/json-schema';
import { isMap, isPair, isScalar, LineCounter, parseDocument, stringify } from 'yaml';
import type { Schemas } from './api/client';

export interface LineError {
  line: number | undefined;
  message: string;
}

export interface PolicyFile {
  scope: Schemas['Policy']['scope'];
  scopeId: string;
  domain: Schemas['Policy']['domain'];
  name: string;
  version: string;
  content: Record<string, unknown>;
  changeReason?: string;
  status?: string;
}

const validator = new Validator(schema as never, '2020-12', false);

/** The line (1-based) of the value (or key) at `path` in the YAML text, else of its nearest parent. */
export function lineOf(text: string, path: readonly (string | number)[]): number | undefined {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter });
  for (let n = path.length; n > 0; n--) {
    const parent = n === 1 ? doc.contents : doc.getIn(path.slice(0, n - 1), true);
    if (isMap(parent)) {
      const pair = parent.items.find(
        (p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(path[n - 1]),
      );
      const range = pair && isScalar(pair.key) ? pair.key.range : undefined;
      if (range) return counter.linePos(range[0]).line;
    }
    const node = doc.getIn(path.slice(0, n), true) as { range?: [number, number, number] } | undefined;
    if (node?.range) return counter.linePos(node.range[0]).line;
  }
  return undefined;
}

export function checkPolicyFile(text: string): { file?: PolicyFile; errors: LineError[] } {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false });
  if (doc.errors.length > 0) {
    return {
      errors: doc.errors.map((e) => ({
        line: counter.linePos(e.pos[0]).line,
        message: e.message.split('\n')[0] ?? '',
      })),
    };
  }
  const value = doc.toJS() as unknown;
  const result = validator.validate(value);
  if (result.valid) return { file: value as PolicyFile, errors: [] };
  // The most specific errors only: the deepest locations, without the combinators' summaries.
  const specific = result.errors.filter(
    (e) =>
      !['anyOf', 'allOf', 'if', 'then', '$ref', 'properties', 'additionalProperties'].includes(e.keyword) ||
      e.keyword === 'additionalProperties',
  );
  const seen = new Set<string>();
  const errors: LineError[] = [];
  for (const e of specific.length > 0 ? specific : result.errors) {
    const path = e.instanceLocation
      .replace(/^#\/?/, '')
      .split('/')
      .filter(Boolean)
      .map((s) => decodeURIComponent(s.replace(/~1/g, '/').replace(/~0/g, '~')));
    const message = `${path.length ? path.join('.') : 'the file'}: ${e.error}`;
    if (seen.has(message)) continue;
    seen.add(message);
    errors.push({ line: lineOf(text, path), message });
  }
  return { errors };
}

/** The editable text of a stored policy. */
export function policyText(p: Schemas['Policy']): string {
  let content: unknown = {};
  try {
    content = parseDocument(p.content).toJS() ?? {};
  } catch {
    content = p.content;
  }
  return stringify({
    scope: p.scope,
    scopeId: p.scopeId,
    domain: p.domain,
    name: p.name,
    version: p.version,
    content,
    changeReason: '',
  });
}

export const contentText = (content: Record<string, unknown>) => stringify(content);

/**
 * A `status` in the file the console cannot apply, on its line: PUT and POST take no status (a
 * policy written is active) and only DELETE deprecates — so a status other than the policy's own
 * (`active` for a new one) would be dropped without a word. `current` is the policy the file
 * updates, undefined when it creates one.
 */
export function statusError(
  text: string,
  file: PolicyFile,
  current: Pick<Schemas['Policy'], 'status'> | undefined,
): LineError | undefined {
  const now = current?.status ?? 'active';
  if (file.status === undefined || file.status === now) return undefined;
  return {
    line: lineOf(text, ['status']),
    message:
      file.status === 'deprecated'
        ? 'status: deprecated cannot be applied from the editor; remove this line and use Deprecate on the policy instead.'
        : current
          ? `status: the editor cannot change a policy's status (it is ${now}); remove this line.`
          : `status: a policy created here is active; remove this line (use Deprecate to retire one).`,
  };
}
