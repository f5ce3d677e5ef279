/**
 * A deep copy of plain data (objects with `Object.prototype` or no prototype, arrays, primitives)
 * for the in-memory stores that copy every record in and out. Several times cheaper than
 * `structuredClone`, which serializes through V8's value serializer even for a small record.
 * Anything else (a `Date`, a `Map`, a typed array, a class instance…) is handed to
 * `structuredClone`, so the result matches it for every value those stores keep; like it, a
 * function throws. Records are acyclic (they are validated data): a cycle is a `RangeError`.
 */
export function clonePlain<T>(value: T): T {
  return cloneValue(value, false) as T;
}

/**
 * `clonePlain`, with every object and array of the copy frozen: a copy a store can hand out
 * without copying it again (writing to it throws in strict mode instead of changing the store).
 */
export function frozenClonePlain<T>(value: T): Readonly<T> {
  return cloneValue(value, true) as T;
}

function cloneValue(value: unknown, freeze: boolean): unknown {
  if (typeof value !== 'object' || value === null) {
    return typeof value === 'function' || typeof value === 'symbol' ? structuredClone(value) : value;
  }
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = cloneValue(value[i], freeze);
    return freeze ? Object.freeze(out) : out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    const other = structuredClone(value);
    return freeze ? Object.freeze(other) : other;
  }
  const out: Record<string, unknown> = {};
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const v = cloneValue((value as Record<string, unknown>)[key], freeze);
    // An own `__proto__` key (JSON.parse makes one) stays a property; assigning it would set the prototype.
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: v, writable: true, enumerable: true, configurable: true });
    else out[key] = v;
  }
  return freeze ? Object.freeze(out) : out;
}
