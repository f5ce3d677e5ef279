import { describe, expect, it } from 'vitest';
import { clonePlain, frozenClonePlain } from '../src/plain-clone';

describe('clonePlain', () => {
  it('copies nested plain data deeply, equal to structuredClone', () => {
    const value = {
      a: 1,
      s: 'x',
      n: null,
      u: undefined,
      list: [{ b: [1, 2, { c: true }] }, 'y'],
      nested: { deep: { deeper: { v: -0 } } },
    };
    const copy = clonePlain(value);
    expect(copy).toStrictEqual(structuredClone(value));
    expect(copy).not.toBe(value);
    expect(copy.list).not.toBe(value.list);
    expect(copy.list[0]).not.toBe(value.list[0]);
    expect(copy.nested.deep).not.toBe(value.nested.deep);
    (copy.list[0] as { b: unknown[] }).b.push(3);
    expect(value.list[0]).toEqual({ b: [1, 2, { c: true }] });
  });

  it('hands non-plain objects to structuredClone and copies null-prototype objects', () => {
    const date = new Date('2026-01-01T00:00:00.000Z');
    const map = new Map([['k', { v: 1 }]]);
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { k: [1] });
    const copy = clonePlain({ date, map, bytes: new Uint8Array([1, 2]), bare });
    expect(copy.date).toBeInstanceOf(Date);
    expect(copy.date).not.toBe(date);
    expect(copy.date.getTime()).toBe(date.getTime());
    expect(copy.map.get('k')).toEqual({ v: 1 });
    expect(copy.map.get('k')).not.toBe(map.get('k'));
    expect([...copy.bytes]).toEqual([1, 2]);
    expect(copy.bare).toEqual({ k: [1] });
    expect(copy.bare.k).not.toBe(bare.k);
  });

  it('keeps own enumerable keys only, like structuredClone', () => {
    const proto = { inherited: 1 };
    const withHidden = Object.defineProperty({ shown: 1 }, 'hidden', { value: 2, enumerable: false });
    expect(clonePlain({ o: withHidden })).toEqual({ o: { shown: 1 } });
    expect(clonePlain(Object.assign(Object.create(null), { own: 1 }, {}) as object)).toEqual({ own: 1 });
    const inheriting = clonePlain({ o: Object.create(proto) as object });
    expect(inheriting.o).toEqual({});
    expect(Object.getPrototypeOf(inheriting.o)).toBe(Object.prototype);
  });

  it('keeps an own __proto__ key (as JSON.parse makes) as a property, never as the prototype', () => {
    const parsed = JSON.parse('{"a":[{"__proto__":null}],"__proto__":{"x":1}}') as object;
    const copy = clonePlain(parsed);
    expect(copy).toEqual(parsed);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.hasOwn(copy, '__proto__')).toBe(true);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(parsed));
    expect(JSON.stringify(copy)).toBe(JSON.stringify(structuredClone(parsed)));
  });

  it('throws on a function, as structuredClone does', () => {
    expect(() => clonePlain({ f: () => 1 })).toThrow();
  });
});

describe('frozenClonePlain', () => {
  it('copies like clonePlain and freezes every object and array of the copy', () => {
    const value = { a: [{ b: 1 }, 'x'], o: { p: { q: null } }, s: 's' };
    const copy = frozenClonePlain(value);
    expect(copy).toStrictEqual(clonePlain(value));
    expect(copy).not.toBe(value);
    for (const part of [copy, copy.a, copy.a[0], copy.o, copy.o.p]) expect(Object.isFrozen(part)).toBe(true);
    expect(Object.isFrozen(value.a)).toBe(false);
  });
});
