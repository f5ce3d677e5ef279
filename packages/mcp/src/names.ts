/**
 * Namespacing of upstream tools: the assistant sees `<namespace>__<tool>`; the actions policy is
 * asked about the same name in lower case (policy keys are lower case). An upstream tool whose
 * name is not plain ASCII (`A-Z a-z 0-9 _ - .`, 1–128) is never exposed (Unicode confusables),
 * and tools whose policy names collide (case variants, the same name twice) are all withheld:
 * a name trick can only hide a tool, never reach one under another tool's policy.
 */
import { NAMESPACE_PATTERN } from './config';

export const SEPARATOR = '__';
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** The name the assistant sees. */
export function exposedName(namespace: string, tool: string): string {
  return `${namespace}${SEPARATOR}${tool}`;
}

/** The name the actions policy is asked about (lower case). */
export function policyName(exposed: string): string {
  return exposed.toLowerCase();
}

/** `{namespace, tool}` of an exposed name, or undefined when it is not one. */
export function splitExposedName(name: string): { namespace: string; tool: string } | undefined {
  const at = name.indexOf(SEPARATOR);
  if (at <= 0) return undefined;
  const namespace = name.slice(0, at);
  const tool = name.slice(at + SEPARATOR.length);
  if (!NAMESPACE_PATTERN.test(namespace) || !TOOL_NAME.test(tool)) return undefined;
  return { namespace, tool };
}

/** Why an upstream tool name cannot be exposed, or undefined when it can. */
export function badToolName(name: unknown): string | undefined {
  if (typeof name !== 'string') return 'the name is not a string';
  if (!TOOL_NAME.test(name)) return 'the name is not 1-128 characters of A-Z a-z 0-9 _ - .';
  return undefined;
}
