/** PATCH /connectors/{id} body parsing and the JSON merge patch (RFC 7396), property-tested. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyConnectorPatch, ConnectorPatchSchema, mergePatch, ValidationError } from '../src/index';
import { makeConnector } from '../src/testing/fixtures';

const json = fc.jsonValue();
const object = fc.dictionary(fc.string(), json);

describe('mergePatch (RFC 7396)', () => {
  it('RFC 7396 appendix A examples', () => {
    expect(mergePatch({ a: 'b' }, { a: 'c' })).toEqual({ a: 'c' });
    expect(mergePatch({ a: 'b' }, { b: 'c' })).toEqual({ a: 'b', b: 'c' });
    expect(mergePatch({ a: 'b' }, { a: null })).toEqual({});
    expect(mergePatch({ a: { b: 'c' } }, { a: { b: 'd', c: null } })).toEqual({ a: { b: 'd' } });
    expect(mergePatch({ a: [{ b: 'c' }] }, { a: [1] })).toEqual({ a: [1] });
    expect(mergePatch(['a', 'b'], ['c', 'd'])).toEqual(['c', 'd']);
    expect(mergePatch({ a: 'foo' }, 'bar')).toEqual('bar');
    expect(mergePatch({ e: null }, { a: 1 })).toEqual({ e: null, a: 1 });
  });
  it('is idempotent, never mutates its inputs, and treats __proto__ as a plain key', () => {
    fc.assert(
      fc.property(object, object, (target, patch) => {
        const t = structuredClone(target);
        const p = structuredClone(patch);
        const once = mergePatch(target, patch);
        expect(mergePatch(once, patch)).toEqual(once);
        expect(target).toEqual(t);
        expect(patch).toEqual(p);
      }),
    );
    const out = mergePatch({}, JSON.parse('{"__proto__": {"polluted": true}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
  });
});

describe('ConnectorPatchSchema', () => {
  it('never throws on any input; accepts only the documented fields', () => {
    fc.assert(
      fc.property(fc.anything(), (input) => {
        const r = ConnectorPatchSchema.safeParse(input);
        if (r.success) expect(Object.keys(r.data).length).toBeGreaterThan(0);
      }),
    );
    expect(ConnectorPatchSchema.safeParse({}).success).toBe(false);
    expect(ConnectorPatchSchema.safeParse({ type: 'mail' }).success).toBe(false);
    expect(ConnectorPatchSchema.safeParse({ rotation_window_seconds: 10 }).success).toBe(false);
    expect(
      ConnectorPatchSchema.safeParse({ webhook_secret_ref: 'n', config: { webhookSecretRef: 'x' } }).success,
    ).toBe(false);
    expect(ConnectorPatchSchema.safeParse({ status: 'error' }).success).toBe(false);
    expect(ConnectorPatchSchema.parse({ status: 'active' })).toEqual({ status: 'active' });
  });
  it('a merged config holding a secret in plain text is a ValidationError naming the field', () => {
    const c = makeConnector({ config: { baseUrl: 'https://x' } });
    const e = (() => {
      try {
        applyConnectorPatch(c, { config: { apiToken: 'hunter2' } }, new Date());
      } catch (x) {
        return x;
      }
    })();
    expect(e).toBeInstanceOf(ValidationError);
    expect((e as ValidationError).code).toBe('invalid_type');
    expect(JSON.stringify((e as ValidationError).detail)).toContain('config.apiToken');
  });
});
