/**
 * Issuing checkpoints incrementally: the first checkpoint a log issues for a tenant verifies the
 * chain from its start; each later one reads only the records appended since (continuing the
 * previous one's hash and Merkle accumulator), signs the same root a full verification computes,
 * and still refuses a chain broken in what it reads.
 */
import {
  type AuditCheckpoint,
  type AuditHashScanOptions,
  type AuditRecord,
  type AuditScanOptions,
  InMemoryAuditStore,
  InMemorySecretStore,
} from '@agentgov/core';
import { describe, expect, it } from 'vitest';
import { generateAuditKeys } from '../src/index';
import { createAuditLog } from '../src/log';
import { verifyTenant } from '../src/verify';
import { entryInput, KEYS, secrets } from './helpers';

/** The in-memory store, counting the records its scans hand out; `tampered` alters one as read. */
class WatchedStore extends InMemoryAuditStore {
  read = 0;
  hashesRead = 0;
  tampered: number | undefined;
  /** A seq whose hash the hashes-only scan gives altered. */
  hashTampered: number | undefined;
  #altered(r: AuditRecord): AuditRecord {
    return r.seq === this.tampered ? { ...r, entry: { ...r.entry, outcome: 'denied' } } : r;
  }
  override async *scanPages(tenantId: string, options?: AuditHashScanOptions) {
    for await (const page of super.scanPages(tenantId, options)) {
      this.read += page.length;
      yield page.map((r) => this.#altered(r));
    }
  }
  override async *scanHashes(tenantId: string, options?: AuditHashScanOptions) {
    let seq = options?.fromSeq ?? 1;
    for await (const page of super.scanHashes(tenantId, options)) {
      this.hashesRead += page.length;
      yield page.map((h) => (seq++ === this.hashTampered ? `${h[0] === 'a' ? 'b' : 'a'}${h.slice(1)}` : h));
    }
  }
  override async *scan(tenantId: string, options?: AuditScanOptions) {
    for await (const r of super.scan(tenantId, options)) {
      this.read++;
      yield this.#altered(r);
    }
  }
  /** Runs (once) before the next checkpoint is saved: another process saving first. */
  beforeSave: (() => Promise<unknown>) | undefined;
  override async saveCheckpoint(checkpoint: AuditCheckpoint) {
    const before = this.beforeSave;
    this.beforeSave = undefined;
    await before?.();
    return super.saveCheckpoint(checkpoint);
  }
  /** When set, the first stored checkpoint is handed out with another root (a forged row). */
  forgeFirstCheckpoint = false;
  override async checkpoints(tenantId: string) {
    const list = await super.checkpoints(tenantId);
    const first = list[0];
    if (this.forgeFirstCheckpoint && first)
      first.rootHash = `${first.rootHash[0] === 'a' ? 'b' : 'a'}${first.rootHash.slice(1)}`;
    return list;
  }
  takeRead(): number {
    const n = this.read;
    this.read = 0;
    return n;
  }
}

const batch = (n: number) => Array.from({ length: n }, () => entryInput());

/** Two audit logs on one watched store with the same keys: two server instances on one database. */
function twoInstances() {
  const store = new WatchedStore();
  const s = secrets();
  return { store, s, a: createAuditLog({ store, secrets: s }), b: createAuditLog({ store, secrets: s }) };
}

describe('incremental checkpoints', () => {
  it('reads only the records appended since the last checkpoint, and signs the root a full verification computes', async () => {
    const store = new WatchedStore();
    const takeRead = () => store.takeRead();
    const s = secrets();
    const log = createAuditLog({ store, secrets: s });
    (await log.appendBatch(batch(13)))._unsafeUnwrap();
    takeRead();
    const cp1 = (await log.checkpoint('t1'))._unsafeUnwrap();
    expect(takeRead()).toBe(13);
    (await log.appendBatch(batch(8)))._unsafeUnwrap();
    const cp2 = (await log.checkpoint('t1'))._unsafeUnwrap();
    expect(takeRead()).toBe(8);
    (await log.appendBatch(batch(1)))._unsafeUnwrap();
    const cp3 = (await log.checkpoint('t1'))._unsafeUnwrap();
    expect(takeRead()).toBe(1);
    expect([cp1.treeSize, cp2.treeSize, cp3.treeSize]).toEqual([13, 21, 22]);

    // The whole chain verified from its start: the same roots, and every checkpoint holds.
    const full = await verifyTenant(store, 't1', { secrets: s, publicJwk: KEYS.publicJwk });
    expect(full.ok).toBe(true);
    expect(full.rootHash).toBe(cp3.rootHash);
    expect(full.checkpoints.map((c) => [c.treeSize, c.ok])).toEqual([
      [13, true],
      [21, true],
      [22, true],
    ]);
    const upTo21 = await verifyTenant(store, 't1', { secrets: s, publicJwk: KEYS.publicJwk, toSeq: 21 });
    expect(upTo21.rootHash).toBe(cp2.rootHash);

    // A second log on the same store (a new process: it verified nothing yet) continues from the
    // latest stored checkpoint, once its signature and the stored hashes up to it check out:
    // only the records appended since are read as records.
    const other = createAuditLog({ store, secrets: s });
    (await other.appendBatch(batch(2)))._unsafeUnwrap();
    takeRead();
    store.hashesRead = 0;
    const cp4 = (await other.checkpoint('t1'))._unsafeUnwrap();
    expect(takeRead()).toBe(2);
    expect(store.hashesRead).toBe(22);
    expect(cp4.rootHash).toBe((await verifyTenant(store, 't1', { secrets: s })).rootHash);
  });

  it('a new log does not continue from a stored checkpoint the stored hashes do not reproduce, or that another key signed', async () => {
    const s = secrets();
    for (const spoil of ['hash', 'key'] as const) {
      const store = new WatchedStore();
      const log = createAuditLog({ store, secrets: s });
      (await log.appendBatch(batch(6)))._unsafeUnwrap();
      (await log.checkpoint('t1'))._unsafeUnwrap();
      (await log.appendBatch(batch(3)))._unsafeUnwrap();
      if (spoil === 'hash') store.hashTampered = 4; // the hashes-only scan reads another hash at seq 4
      const other = createAuditLog({
        store,
        secrets:
          spoil === 'key'
            ? new InMemorySecretStore({
                'audit-commitment-key': KEYS.commitmentKey,
                'audit-signing-key': (await generateAuditKeys()).signingKey,
              })
            : s,
      });
      store.takeRead();
      const cp = await other.checkpoint('t1');
      // Verified from the start: every record read and re-derived.
      expect(store.takeRead()).toBe(9);
      if (spoil === 'hash') expect(cp._unsafeUnwrap().treeSize).toBe(9);
      // The stored checkpoint does not verify with the other key: the chain check says so, and
      // nothing is signed over it.
      else expect(cp._unsafeUnwrapErr().message).toMatch(/broken audit chain/);
    }
  });

  it('refuses to checkpoint a record broken in the new range, and continues once it reads right again', async () => {
    const store = new WatchedStore();
    const log = createAuditLog({ store, secrets: secrets() });
    (await log.appendBatch(batch(5)))._unsafeUnwrap();
    (await log.checkpoint('t1'))._unsafeUnwrap();
    (await log.appendBatch(batch(4)))._unsafeUnwrap();
    store.tampered = 7;
    const refused = (await log.checkpoint('t1'))._unsafeUnwrapErr();
    expect(refused.message).toMatch(/broken audit chain/);
    expect(refused.detail).toMatchObject({ seq: 7 });
    store.tampered = undefined;
    const cp = (await log.checkpoint('t1'))._unsafeUnwrap();
    expect(cp.treeSize).toBe(9);
  });

  it('a later checkpoint checks only what is new, not every earlier checkpoint again; a full verify still does', async () => {
    const store = new WatchedStore();
    const s = secrets();
    const log = createAuditLog({ store, secrets: s });
    for (let k = 0; k < 3; k++) {
      (await log.appendBatch(batch(2)))._unsafeUnwrap();
      (await log.checkpoint('t1'))._unsafeUnwrap();
    }
    store.forgeFirstCheckpoint = true; // the stored row of the first checkpoint no longer matches its JWS
    (await log.appendBatch(batch(2)))._unsafeUnwrap();
    // The prefix this log verified (up to 6) is vouched for: the forged row of size 2 is not read.
    expect((await log.checkpoint('t1'))._unsafeUnwrap().treeSize).toBe(8);
    const full = await verifyTenant(store, 't1', { secrets: s, publicJwk: KEYS.publicJwk });
    expect(full.ok).toBe(false);
    expect(full.checkpoints[0]).toMatchObject({ treeSize: 2, ok: false, signature: 'valid' });
  });

  it('two instances on one store: each moves on to the checkpoints the other issued (hashes only), re-deriving only what is new', async () => {
    const { store, s, a, b } = twoInstances();
    (await a.appendBatch(batch(6)))._unsafeUnwrap();
    (await b.checkpoint('t1'))._unsafeUnwrap(); // b: from the start, 6 records
    (await a.appendBatch(batch(4)))._unsafeUnwrap();
    (await a.checkpoint('t1'))._unsafeUnwrap(); // a: stored checkpoint 6 (b's), then 4 records
    (await b.appendBatch(batch(2)))._unsafeUnwrap();
    store.takeRead();
    store.hashesRead = 0;
    const cp = (await b.checkpoint('t1'))._unsafeUnwrap();
    // b's own prefix ends at 6; a's checkpoint at 10 carries it on over 4 hashes; 2 records new.
    expect(store.hashesRead).toBe(4);
    expect(store.takeRead()).toBe(2);
    expect(cp.treeSize).toBe(12);
    expect(cp.rootHash).toBe((await verifyTenant(store, 't1', { secrets: s })).rootHash);
  });

  it('two instances checkpointing the same head at once: the one saved second answers the stored one', async () => {
    const { store, a, b } = twoInstances();
    (await a.appendBatch(batch(5)))._unsafeUnwrap();
    let theirs: AuditCheckpoint | undefined;
    store.beforeSave = async () => {
      theirs = (await b.checkpoint('t1'))._unsafeUnwrap();
    };
    const ours = (await a.checkpoint('t1'))._unsafeUnwrap();
    expect(theirs?.treeSize).toBe(5);
    expect(ours).toEqual(theirs);
    expect(await store.checkpoints('t1')).toHaveLength(1);
  });
});
