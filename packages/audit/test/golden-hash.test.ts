/**
 * Golden records: the hashes of a fixed chain (fixed commitment key, clock and ids) pinned as they
 * were computed before the append path was reworked (issue 26), so any change to the bytes hashed
 * — canonical JSON, commitments, the leaf — fails here, whichever path (fast or original) and
 * whichever call (append, appendBatch, coalesced appends of one turn) wrote the record.
 */
import { type AuditEntryInput, InMemoryAuditStore, InMemorySecretStore, ManualClock } from '@agentgov/core';
import { describe, expect, it } from 'vitest';
import { createAuditLog, sha256Hex, verifyTenant } from '../src/index';

const MASTER = 'golden-commitment-master-key-0123456789abcdef';

function goldenLog() {
  const store = new InMemoryAuditStore();
  let n = 0;
  const log = createAuditLog({
    store,
    secrets: new InMemorySecretStore({ 'audit-commitment-key': MASTER }),
    clock: new ManualClock('2026-03-04T05:06:07.089Z'),
    ids: () => `01JQ${String(++n).padStart(22, '0')}`,
  });
  return { store, log };
}

const base: AuditEntryInput = {
  tenantId: 'acme',
  userId: 'alice',
  actionType: 'tool_invocation',
  actionDetail: { tool: 'notes__search', initiatorUserId: 'bob', args: { q: 'plan', n: 3, deep: [1, 'é'] } },
  policyApplied: 'actions',
  policyResult: 'allow',
  outcome: 'success',
  requestId: 'req-1',
};

const inputs: AuditEntryInput[] = [
  base,
  { ...base, requestId: 'req-2', timestamp: '2026-02-03T05:05:06+01:00', modelUsed: 'm/x' },
  {
    ...base,
    requestId: 'req-3',
    modelTokens: { input: 10, output: 20 },
    dataAccessed: [{ source: 'drive', classification: 'internal', purpose: 'answer "q"' }],
    dataClassification: 'internal',
    policyReason: 'because\n',
  },
  // Not plain JSON (a Date in the detail): the original path hashes it.
  { ...base, requestId: 'req-4', actionDetail: { at: new Date(0), approverUserId: 'carol' } },
];

const GOLDEN = [
  '2cbd1682b0c1786c7ea4c7830c9e3cdd0147019e7f1c220569a468059adfa2a4',
  '3f73e4014b58009b08126bd954f40031c59bf092af75b419efe2bf1d0096b867',
  'cad3b38e709dfdab5df89c3a1859dfa9c23eeb0b49cbbbf636aabc0105902924',
  'aa67ad6d79979775569cd37294d71f18028f7b104f95959fc5ea58a91a244487',
];

describe('golden record hashes', () => {
  it('appends one at a time: the pinned hashes', async () => {
    const { store, log } = goldenLog();
    for (const input of inputs) (await log.append(input))._unsafeUnwrap();
    const records = [];
    for await (const r of store.scan('acme')) records.push(r);
    expect(records.map((r) => r.hash)).toEqual(GOLDEN);
    for (const r of records) expect(sha256Hex(r.leaf as string)).toBe(r.hash);
    const report = await verifyTenant(store, 'acme', {
      secrets: new InMemorySecretStore({ 'audit-commitment-key': MASTER }),
      allowUnchecked: true,
    });
    expect(report).toMatchObject({ ok: true, checked: 4 });
  });

  it('appendBatch and appends of one turn hash the same bytes', async () => {
    const batch = goldenLog();
    (await batch.log.appendBatch(inputs))._unsafeUnwrap();
    const together = goldenLog();
    for (const r of await Promise.all(inputs.map((i) => together.log.append(i)))) r._unsafeUnwrap();
    for (const { store } of [batch, together]) {
      const hashes = [];
      for await (const r of store.scan('acme')) hashes.push(r.hash);
      expect(hashes).toEqual(GOLDEN);
    }
  });
});
