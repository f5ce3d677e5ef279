/** Random (normalized) content of a lattice node, for the property tests; absent keys are common. */
import { CLASSIFICATION_LEVELS } from '@agentgov/core';
import fc from 'fast-check';
import { type LatticeNode, normalize } from '../src/index';

/** `freeKeys`: the names a map without a closed key set draws from (so tests can refer to them). */
export function contentArb(
  node: LatticeNode,
  freeKeys: readonly string[] = ['t1', 't2', 't3'],
): fc.Arbitrary<unknown> {
  const raw = ((): fc.Arbitrary<unknown> => {
    switch (node.kind) {
      case 'level':
      case 'levelFloor':
        return fc.constantFrom(...CLASSIFICATION_LEVELS);
      case 'allowList':
      case 'denyList':
        return node.values
          ? fc.subarray([...node.values])
          : fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 4 });
      case 'numericMax':
        return fc.integer({ min: node.min, max: Math.min(node.max, node.min + 8) });
      case 'numericMin':
        return fc.integer({ min: node.floor, max: node.floor + 8 });
      case 'grant':
        // A grant no policy can give (cross_enterprise) only ever holds `false`.
        return node.never === undefined ? fc.boolean() : fc.constant(false);
      case 'obligation':
        return fc.boolean();
      case 'ordinal':
        return fc.constantFrom(...node.order);
      case 'map':
        return node.keys
          ? fc.record(Object.fromEntries(node.keys.map((k) => [k, contentArb(node.child, freeKeys)])), {
              requiredKeys: [],
            })
          : fc.dictionary(
              fc.constantFrom(...freeKeys, ...(node.known ?? []).slice(0, 2)),
              contentArb(node.child, freeKeys),
              {
                maxKeys: 3,
              },
            );
      case 'object':
        return fc.record(
          Object.fromEntries(Object.entries(node.fields).map(([k, n]) => [k, contentArb(n, freeKeys)])),
          { requiredKeys: [] },
        );
    }
  })();
  return raw.map((v) => normalize(node, v));
}
