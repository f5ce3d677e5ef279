/**
 * A deep copy of plain data (objects with `Object.prototype` or no prototype, arrays, primitives)
 * for the in-memory stores that copy every record in and out. Several times cheaper than
 * `structuredClone`, which serializes through V8's value serializer even for a small record.
 * Anything else (a `Date`, a `Map`, a typed array, a class instance…) is handed to
 * `structuredClone`, so the result matches it for every value those stores keep; like it, a
 * function throws. Records are acyclic (they are validated data): a cycle is a `RangeError`.
 */
export function clonePlain<T>(value: T): T {
  return cloneValue(value) as T;
}

function cloneValue(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) {
    return typeof value === 'function' || typeof value === 'symbol' ? structuredClone(value) : value;
  }
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = cloneValue(value[i]);
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const v = cloneValue((value as Record<string, unknown>)[key]);
    // An own `__proto__` key (JSON.parse makes one) stays a property; assigning it would set the prototype.
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: v, writable: true, enumerable: true, configurable: true });
    else out[key] = v;
  }
  return out;
}
