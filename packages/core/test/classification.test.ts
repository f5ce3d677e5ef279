import {
  CLASSIFICATION_LEVELS,
  type ClassificationLevel,
  CONNECTOR_DEFAULT_CLASSIFICATION,
  CONNECTOR_TYPES,
  classificationOrder,
  classifyByConnector,
  compareClassification,
  DataClassificationSchema,
  isWithinClassification,
  maxClassification,
  minClassification,
  overrideClassification,
  reclassifyByAi,
} from '@agentgov/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { level } from './arbitraries';

const t0 = new Date('2025-01-01T00:00:00.000Z');
const t1 = new Date('2025-01-02T00:00:00.000Z');
const le = (a: ClassificationLevel, b: ClassificationLevel) => compareClassification(a, b) <= 0;

describe('classification levels', () => {
  it('orders public 0 < internal 1 < confidential 2 < restricted 3', () => {
    expect(CLASSIFICATION_LEVELS).toEqual(['public', 'internal', 'confidential', 'restricted']);
    expect(CLASSIFICATION_LEVELS.map(classificationOrder)).toEqual([0, 1, 2, 3]);
  });

  it('compare is a total order (reflexive, antisymmetric, transitive, total)', () => {
    fc.assert(
      fc.property(level, level, level, (a, b, c) => {
        expect(compareClassification(a, a)).toBe(0);
        expect(Math.sign(compareClassification(a, b)) + Math.sign(compareClassification(b, a))).toBe(0);
        if (compareClassification(a, b) === 0) expect(a).toBe(b);
        expect(le(a, b) || le(b, a)).toBe(true);
        if (le(a, b) && le(b, c)) expect(le(a, c)).toBe(true);
      }),
    );
  });

  it('min/max form a lattice: commutative, associative, idempotent, absorption', () => {
    fc.assert(
      fc.property(level, level, level, (a, b, c) => {
        expect(minClassification(a, b)).toBe(minClassification(b, a));
        expect(maxClassification(a, b)).toBe(maxClassification(b, a));
        expect(minClassification(minClassification(a, b), c)).toBe(
          minClassification(a, minClassification(b, c)),
        );
        expect(maxClassification(maxClassification(a, b), c)).toBe(
          maxClassification(a, maxClassification(b, c)),
        );
        expect(minClassification(a, a)).toBe(a);
        expect(maxClassification(a, a)).toBe(a);
        expect(minClassification(a, maxClassification(a, b))).toBe(a);
        expect(maxClassification(a, minClassification(a, b))).toBe(a);
      }),
    );
  });

  it('min is a lower bound of both and the greatest one; max the least upper bound', () => {
    fc.assert(
      fc.property(level, level, (a, b) => {
        const m = minClassification(a, b);
        const M = maxClassification(a, b);
        expect(le(m, a) && le(m, b)).toBe(true);
        expect(le(a, M) && le(b, M)).toBe(true);
        for (const x of CLASSIFICATION_LEVELS) {
          if (le(x, a) && le(x, b)) expect(le(x, m)).toBe(true);
          if (le(a, x) && le(b, x)) expect(le(M, x)).toBe(true);
        }
        expect([a, b]).toContain(m);
        expect([a, b]).toContain(M);
      }),
    );
  });

  it('variadic min/max equal the fold of the binary ones', () => {
    fc.assert(
      fc.property(level, fc.array(level, { maxLength: 6 }), (first, rest) => {
        expect(minClassification(first, ...rest)).toBe(
          rest.reduce((acc, l) => minClassification(acc, l), first),
        );
        expect(maxClassification(first, ...rest)).toBe(
          rest.reduce((acc, l) => maxClassification(acc, l), first),
        );
      }),
    );
  });

  it('isWithinClassification(level, limit) is level ≤ limit', () => {
    fc.assert(
      fc.property(level, level, (a, b) => {
        expect(isWithinClassification(a, b)).toBe(classificationOrder(a) <= classificationOrder(b));
      }),
    );
    expect(isWithinClassification('confidential', 'internal')).toBe(false);
    expect(isWithinClassification('internal', 'internal')).toBe(true);
  });

  it('connector defaults are exactly the spec table', () => {
    expect(CONNECTOR_TYPES).toEqual(['mail', 'calendar', 'tracker', 'codehost', 'drive']);
    expect(CONNECTOR_DEFAULT_CLASSIFICATION).toEqual({
      mail: 'internal',
      calendar: 'internal',
      tracker: 'internal',
      codehost: 'public',
      drive: 'internal',
    });
  });
});

describe('three-layer classification assignment', () => {
  const connectorType = fc.constantFrom(...CONNECTOR_TYPES);

  it('layer 1: the connector default (or the connector’s own defaultClassification)', () => {
    for (const type of CONNECTOR_TYPES) {
      const rec = classifyByConnector('t', `${type}:1`, type, t0);
      expect(DataClassificationSchema.parse(rec)).toEqual(rec);
      expect(rec).toEqual({
        tenantId: 't',
        dataRef: `${type}:1`,
        level: CONNECTOR_DEFAULT_CLASSIFICATION[type],
        assignedBy: 'connector_default',
        originalLevel: null,
        overrideBy: null,
        overrideReason: null,
        assessedAt: t0.toISOString(),
      });
    }
    expect(
      classifyByConnector('t', 'd', { type: 'codehost', defaultClassification: 'confidential' }, t0).level,
    ).toBe('confidential');
    expect(classifyByConnector('t', 'd', { type: 'codehost' }, t0).level).toBe('public');
  });

  it('layer 2: AI reclassification never lowers the level, and raises to exactly the proposal', () => {
    fc.assert(
      fc.property(connectorType, fc.array(level, { minLength: 1, maxLength: 6 }), (type, proposals) => {
        let rec = classifyByConnector('t', 'd', type, t0);
        const original = rec.level;
        for (const p of proposals) {
          const before = rec;
          rec = reclassifyByAi(rec, p, t1);
          expect(le(before.level, rec.level)).toBe(true);
          expect(rec.level).toBe(maxClassification(before.level, p));
          if (compareClassification(p, before.level) <= 0) expect(rec).toBe(before);
          else {
            expect(rec.assignedBy).toBe('ai_reclassification');
            expect(rec.assessedAt).toBe(t1.toISOString());
          }
        }
        expect(rec.level).toBe(maxClassification(original, ...proposals));
        if (rec.level !== original) expect(rec.originalLevel).toBe(original);
        else expect(rec.originalLevel).toBeNull();
        expect(DataClassificationSchema.safeParse(rec).success).toBe(true);
      }),
    );
  });

  it('layer 3: an admin override sets any level and records who, why and the original level', () => {
    fc.assert(
      fc.property(connectorType, fc.option(level, { nil: undefined }), level, (type, aiLevel, target) => {
        let rec = classifyByConnector('t', 'd', type, t0);
        const original = rec.level;
        if (aiLevel) rec = reclassifyByAi(rec, aiLevel, t0);
        const out = overrideClassification(rec, target, { userId: 'admin-1', reason: 'false positive' }, t1);
        expect(out).toMatchObject({
          level: target,
          assignedBy: 'admin_override',
          originalLevel: original,
          overrideBy: 'admin-1',
          overrideReason: 'false positive',
          assessedAt: t1.toISOString(),
        });
        expect(DataClassificationSchema.safeParse(out).success).toBe(true);
      }),
    );
  });

  it('an admin override is final for AI: a later AI proposal changes nothing', () => {
    fc.assert(
      fc.property(level, level, (target, proposal) => {
        const overridden = overrideClassification(
          classifyByConnector('t', 'd', 'mail', t0),
          target,
          { userId: 'admin', reason: 'r' },
          t0,
        );
        expect(reclassifyByAi(overridden, proposal, t1)).toBe(overridden);
      }),
    );
  });
});
