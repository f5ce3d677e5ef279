import { describe, expect, it } from 'vitest';
import { InMemoryAuditStore } from '../src/audit/memory';
import type { AuditRecord } from '../src/audit/port';
import { type AuditEntry, AuditEntrySchema } from '../src/audit/schema';

const entry = (i: number, userId: string): AuditEntry =>
  AuditEntrySchema.parse({
    id: `01HZZZZZZZZZZZZZZZZZZZZZ${String(i).padStart(2, '0')}`,
    tenantId: 't',
    userId,
    timestamp: '2026-01-01T00:00:00.000Z',
    actionType: 'model_call',
    actionDetail: {},
    dataClassification: 'internal',
    policyApplied: 'p',
    policyResult: 'allow',
    outcome: 'success',
    requestId: `r-${i}`,
  });

async function seeded(): Promise<InMemoryAuditStore> {
  const store = new InMemoryAuditStore();
  await store.append('t', () =>
    ['alice', 'bob', 'alice'].map((u, i) => ({
      entry: entry(i + 1, u),
      seq: i + 1,
      prevHash: i === 0 ? '0'.repeat(64) : String(i).repeat(64),
      hash: String(i + 1).repeat(64),
      commitments: { userId: 'c'.repeat(64) },
    })),
  );
  return store;
}

async function pages(store: InMemoryAuditStore): Promise<(readonly AuditRecord[])[]> {
  const out: (readonly AuditRecord[])[] = [];
  for await (const page of store.scanPages('t', { batchSize: 2 })) out.push(page);
  return out;
}

describe('InMemoryAuditStore.scanPages', () => {
  it('hands out frozen records: writing to one throws and leaves the store as it was', async () => {
    const store = await seeded();
    const [first] = (await pages(store)).flat() as AuditRecord[];
    expect(Object.isFrozen(first)).toBe(true);
    expect(() => {
      (first as AuditRecord).entry.userId = 'mallory';
    }).toThrow(TypeError);
    expect(() => {
      (first as AuditRecord).commitments.userId = 'x';
    }).toThrow(TypeError);
    expect((await pages(store)).flat().map((r) => r.entry.userId)).toEqual(['alice', 'bob', 'alice']);
  });

  it('erasure replaces records (copy on write): a page read before keeps what it read', async () => {
    const store = await seeded();
    const before = (await pages(store)).flat();
    expect(await store.anonymize('t', 'alice', 'anon:0123456789abcdef')).toBe(2);
    expect(before.map((r) => r.entry.userId)).toEqual(['alice', 'bob', 'alice']);
    const after = (await pages(store)).flat();
    expect(after.map((r) => r.entry.userId)).toEqual([
      'anon:0123456789abcdef',
      'bob',
      'anon:0123456789abcdef',
    ]);
    expect(after[1]).toBe(before[1]); // untouched records are not copied
    expect(Object.isFrozen(after[0]?.entry)).toBe(true);
  });

  it('scan still hands out copies a caller may change', async () => {
    const store = await seeded();
    for await (const r of store.scan('t')) r.entry.userId = 'changed';
    expect((await pages(store)).flat().map((r) => r.entry.userId)).toEqual(['alice', 'bob', 'alice']);
  });
});

describe('InMemoryAuditStore.append', () => {
  it('keeps its own copy: the built records it returns can change without changing the chain', async () => {
    const store = new InMemoryAuditStore();
    const built: AuditRecord = {
      entry: entry(1, 'alice'),
      seq: 1,
      prevHash: '0'.repeat(64),
      hash: '1'.repeat(64),
      commitments: { userId: 'c'.repeat(64) },
    };
    const [returned] = await store.append('t', () => [built]);
    expect(returned).toEqual(built);
    (returned as AuditRecord).entry.userId = 'mallory';
    (returned as AuditRecord).entry.actionDetail.x = 1;
    built.commitments.userId = 'd'.repeat(64);
    const stored = await store.get('t', built.entry.id);
    expect(stored?.entry.userId).toBe('alice');
    expect(stored?.entry.actionDetail).toEqual({});
    expect(stored?.commitments).toEqual({ userId: 'c'.repeat(64) });
  });
});
