/** How deep JSON may nest (objects and arrays): a request over A2A, a data item's value. */

/** How deep a request's JSON may nest (objects and arrays). */
export const MAX_DEPTH = 64;

/**
 * How deep one data item's value may nest: a value sits ~8 levels down a request, so a message
 * whose values keep to this always fits the request's MAX_DEPTH (and canonical JSON, the content
 * digest, never recurses past it).
 */
export const MAX_VALUE_DEPTH = 32;

/** Whether `value` nests objects or arrays deeper than `max` (iterative: no stack to overflow). */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (typeof v !== 'object' || v === null) continue;
    if (depth > max) return true;
    for (const child of Object.values(v))
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

/** An item value within MAX_VALUE_DEPTH (a primitive always is). */
export const valueDepthOk = (value: unknown): boolean =>
  typeof value !== 'object' || value === null || !nestedDeeperThan(value, MAX_VALUE_DEPTH);
