import {
  type GovernanceError,
  InMemoryAuditStore,
  InMemorySecretStore,
  type Result,
  ValidationError,
} from '@agentgov/core';
import type { JWK } from 'jose';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  AuditKeyError,
  createAuditLog,
  ensureAuditKeysOrThrow,
  generateAuditKeys,
  merkleLeafHash,
  VerificationError,
  verifyCheckpoint,
  verifyConsistency,
  verifyInclusion,
  verifyTenant,
} from '../src/index';
import { entryInput, KEYS, setup } from './helpers';

describe('AuditLog.append', () => {
  it('200 concurrent appends to one tenant leave a gap-free valid chain', async () => {
    const { log, store, secrets } = setup();
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => log.append(entryInput({ requestId: `r${i}` }))),
    );
    expect(results.every((r) => r.isOk())).toBe(true);
    const seqs: number[] = [];
    for await (const r of store.scan('t1')) seqs.push(r.seq);
    expect(seqs).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    const ids = new Set(results.map((r) => r._unsafeUnwrap().id));
    expect(ids.size).toBe(200);
    expect(await verifyTenant(store, 't1', { secrets })).toMatchObject({ ok: true, checked: 200 });
  });

  it('tenants have separate chains and do not wait for each other', async () => {
    const store = new InMemoryAuditStore();
    const { log, secrets } = setup(store);
    let release!: () => void;
    const blocked = new Promise<void>((r) => {
      release = r;
    });
    // Hold tenant t1's lock with a slow append of our own.
    const slow = store.append('t1', async () => {
      await blocked;
      return [];
    });
    const other = await log.append(entryInput({ tenantId: 't2' }));
    expect(other.isOk()).toBe(true);
    release();
    await slow;
    await Promise.all([1, 2, 3].map((i) => log.append(entryInput({ tenantId: `t${i}` }))));
    expect(await store.tenants()).toEqual(['t1', 't2', 't3']);
    for (const t of ['t1', 't2', 't3']) expect((await verifyTenant(store, t, { secrets })).ok).toBe(true);
    expect(await store.count('t2')).toBe(2);
  });

  it('appendBatch groups by tenant, keeps order, and writes nothing when one input is invalid', async () => {
    const { log, store } = setup();
    const bad = await log.appendBatch([entryInput(), entryInput({ requestId: '' }), entryInput()]);
    expect(bad.isErr()).toBe(true);
    expect(bad._unsafeUnwrapErr()).toBeInstanceOf(ValidationError);
    expect(bad._unsafeUnwrapErr()).toMatchObject({ code: 'invalid_type', field: '1.requestId' });
    expect(await store.count()).toBe(0);
    const good = await log.appendBatch([
      entryInput({ requestId: 'a' }),
      entryInput({ tenantId: 't2', requestId: 'b' }),
      entryInput({ requestId: 'c' }),
    ]);
    expect(good._unsafeUnwrap().map((e) => [e.tenantId, e.requestId])).toEqual([
      ['t1', 'a'],
      ['t2', 'b'],
      ['t1', 'c'],
    ]);
    expect(await store.count('t1')).toBe(2);
    expect((await log.appendBatch([]))._unsafeUnwrap()).toEqual([]);
  });

  it('rejects invalid entries with missing_type / invalid_type naming the field', async () => {
    const { log, store } = setup();
    const missing = await log.append({ ...entryInput(), requestId: undefined as unknown as string });
    expect(missing._unsafeUnwrapErr()).toMatchObject({ code: 'missing_type', field: 'requestId' });
    const enumBad = await log.append(entryInput({ outcome: 'maybe' as never }));
    expect(enumBad._unsafeUnwrapErr()).toMatchObject({ code: 'invalid_type', field: 'outcome' });
    const nan = await log.append(entryInput({ actionDetail: { n: Number.NaN } }));
    expect(nan._unsafeUnwrapErr()).toMatchObject({ code: 'invalid_type', field: 'actionDetail' });
    const nul = await log.append(entryInput({ actionDetail: { s: 'a\u0000b' } }));
    expect(nul._unsafeUnwrapErr()).toMatchObject({ code: 'invalid_type', field: 'actionDetail' });
    const reserved = await log.append(entryInput({ userId: 'anon:0123456789abcdef' }));
    expect(reserved._unsafeUnwrapErr()).toMatchObject({ code: 'invalid_type', field: 'userId' });
    const reservedDetail = await log.append(entryInput({ actionDetail: { initiatorUserId: 'anon:x' } }));
    expect(reservedDetail._unsafeUnwrapErr()).toMatchObject({ field: 'actionDetail.initiatorUserId' });
    expect(await store.count()).toBe(0);
  });

  it('normalizes actionDetail to its JSON form (undefined members dropped) before hashing', async () => {
    const { log, store, secrets } = setup();
    const r = await log.append(entryInput({ actionDetail: { a: undefined, b: 1, when: new Date(0) } }));
    expect(r._unsafeUnwrap().actionDetail).toEqual({ b: 1, when: '1970-01-01T00:00:00.000Z' });
    expect((await verifyTenant(store, 't1', { secrets })).ok).toBe(true);
  });

  it('fails with a typed AuditKeyError and writes nothing when the commitment key is missing or weak', async () => {
    const store = new InMemoryAuditStore();
    const log = createAuditLog({ store, secrets: new InMemorySecretStore() });
    const r = await log.append(entryInput());
    expect(r._unsafeUnwrapErr()).toBeInstanceOf(AuditKeyError);
    expect(r._unsafeUnwrapErr()).toMatchObject({
      code: 'internal_error',
      status: 500,
      detail: { variable: 'AGENTGOV_SECRET_AUDIT_COMMITMENT_KEY', problem: 'missing' },
    });
    expect((await log.checkpoint('t1'))._unsafeUnwrapErr()).toBeInstanceOf(AuditKeyError);
    const weak = createAuditLog({
      store,
      secrets: new InMemorySecretStore({ 'audit-commitment-key': 'short' }),
    });
    expect((await weak.append(entryInput()))._unsafeUnwrapErr()).toMatchObject({
      detail: { problem: 'invalid' },
    });
    expect(await store.count()).toBe(0);
    // Configured later: the next append succeeds (a missing key is not cached).
    const secrets = new InMemorySecretStore();
    const late = createAuditLog({ store, secrets });
    expect((await late.append(entryInput())).isErr()).toBe(true);
    await ensureAuditKeysOrThrow(secrets);
    expect((await late.append(entryInput())).isOk()).toBe(true);
  });

  it('a store failure becomes a typed error, not a throw', async () => {
    const store = new InMemoryAuditStore();
    store.append = async () => {
      throw new Error('disk on fire');
    };
    const { log } = setup(store);
    const r = await log.append(entryInput());
    expect(r._unsafeUnwrapErr()).toMatchObject({ code: 'internal_error' });
  });

  it('honours an aborted signal', async () => {
    const { log, store } = setup();
    const r = await log.append(entryInput(), { signal: AbortSignal.abort() });
    expect(r.isErr()).toBe(true);
    expect(await store.count()).toBe(0);
  });
});

describe('checkpoints and proofs', () => {
  it('signs checkpoints (EdDSA), proves inclusion and consistency, verifiable without the log', async () => {
    const { log } = setup();
    const entries = (await log.appendBatch(Array.from({ length: 13 }, () => entryInput())))._unsafeUnwrap();
    const cp1 = (await log.checkpoint('t1'))._unsafeUnwrap();
    expect((await log.checkpoint('t1'))._unsafeUnwrap()).toEqual(cp1); // idempotent
    await log.appendBatch(Array.from({ length: 8 }, () => entryInput()));
    const cp2 = (await log.checkpoint('t1'))._unsafeUnwrap();
    expect([cp1.treeSize, cp2.treeSize]).toEqual([13, 21]);

    const header = JSON.parse(Buffer.from(cp2.jws.split('.')[0] as string, 'base64url').toString());
    expect(header).toMatchObject({ alg: 'EdDSA', typ: 'agentgov-checkpoint+json' });
    const payload = (await verifyCheckpoint(cp2.jws, KEYS.publicJwk))._unsafeUnwrap();
    expect(payload).toEqual({
      v: 1,
      tenantId: 't1',
      treeSize: 21,
      rootHash: cp2.rootHash,
      issuedAt: cp2.issuedAt,
    });

    const target = entries[6];
    const inc = (await log.proveInclusion('t1', target?.id as string))._unsafeUnwrap();
    expect(inc).toMatchObject({ seq: 7, leafIndex: 6, treeSize: 21, rootHash: cp2.rootHash });
    expect(
      verifyInclusion(inc.leafHash, inc.leafIndex, inc.treeSize, inc.proof, payload.rootHash).isOk(),
    ).toBe(true);
    expect(inc.checkpoint?.jws).toBe(cp2.jws);
    const inc13 = (await log.proveInclusion('t1', target?.id as string, 13))._unsafeUnwrap();
    expect(verifyInclusion(inc13.leafHash, 6, 13, inc13.proof, cp1.rootHash).isOk()).toBe(true);
    expect(inc13.leafHash).toBe(inc.leafHash);
    expect(inc13.checkpoint?.jws).toBe(cp1.jws); // an explicit older size: its own checkpoint
    const inc20 = (await log.proveInclusion('t1', target?.id as string, 20))._unsafeUnwrap();
    expect(inc20.checkpoint).toBeUndefined(); // no checkpoint of that size
    expect(merkleLeafHash('0'.repeat(64))).not.toBe(inc.leafHash);

    const con = (await log.proveConsistency('t1', 13, 21))._unsafeUnwrap();
    expect(con.root1).toBe(cp1.rootHash);
    expect(verifyConsistency(13, 21, con.proof, cp1.rootHash, cp2.rootHash).isOk()).toBe(true);

    expect((await log.proveInclusion('t1', 'nope'))._unsafeUnwrapErr()).toMatchObject({ code: 'NOT_FOUND' });
    expect((await log.proveConsistency('t1', 5, 99))._unsafeUnwrapErr()).toMatchObject({ field: 'size2' });
    expect((await log.checkpoint('empty'))._unsafeUnwrapErr()).toMatchObject({ code: 'invalid_type' });
  });

  it('ES256 keys work too; a tampered or foreign-key JWS does not verify', async () => {
    const es = await generateAuditKeys({ alg: 'ES256' });
    const store = new InMemoryAuditStore();
    const secrets = new InMemorySecretStore({
      'audit-commitment-key': es.commitmentKey,
      'audit-signing-key': es.signingKey,
    });
    const log = createAuditLog({ store, secrets });
    await log.append(entryInput());
    const cp = (await log.checkpoint('t1'))._unsafeUnwrap();
    expect((await verifyCheckpoint(cp.jws, es.publicJwk)).isOk()).toBe(true);
    expect((await verifyCheckpoint(cp.jws, JSON.stringify(es.publicJwk))).isOk()).toBe(true);
    const reasonOf = async (r: ReturnType<typeof verifyCheckpoint>) => {
      const e = (await r)._unsafeUnwrapErr();
      expect(e).toBeInstanceOf(VerificationError);
      expect(e).toMatchObject({ code: 'invalid_type', status: 400, detail: { reason: e.reason } });
      return e.reason;
    };
    expect(await reasonOf(verifyCheckpoint(cp.jws, KEYS.publicJwk))).toBe('invalid_signature');
    const [h, p, s] = cp.jws.split('.') as [string, string, string];
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), treeSize: 99 }),
    ).toString('base64url');
    expect(await reasonOf(verifyCheckpoint(`${h}.${forged}.${s}`, es.publicJwk))).toBe('invalid_signature');
    expect(await reasonOf(verifyCheckpoint('not.a.jws', es.publicJwk))).toBe('invalid_signature');
    expect(await reasonOf(verifyCheckpoint(cp.jws, { kty: 'RSA' }))).toBe('invalid_key');
    expect(await reasonOf(verifyCheckpoint(cp.jws, '{not json'))).toBe('invalid_key');
    expect(await verifyTenant(store, 't1', { secrets })).toMatchObject({ ok: true });
  });

  it('same name, same shape: keys.publicJwk is the JWK, log.loadPublicJwk() a Result — which verifyCheckpoint refuses at compile time', async () => {
    const { log } = setup();
    await log.append(entryInput());
    const cp = (await log.checkpoint('t1'))._unsafeUnwrap();
    const loaded = await log.loadPublicJwk();
    expectTypeOf(KEYS.publicJwk).toEqualTypeOf<JWK>();
    expectTypeOf(loaded).toEqualTypeOf<Result<JWK, GovernanceError>>();
    expect(loaded._unsafeUnwrap()).toEqual(KEYS.publicJwk);
    expect((await verifyCheckpoint(cp.jws, loaded._unsafeUnwrap())).isOk()).toBe(true);
    // @ts-expect-error a Result is not a public JWK (the types used to let this through)
    const mistaken = await verifyCheckpoint(cp.jws, loaded);
    expect(mistaken._unsafeUnwrapErr().reason).toBe('invalid_key');
    // @ts-expect-error nor is a promise of one
    expect((await verifyCheckpoint(cp.jws, log.loadPublicJwk()))._unsafeUnwrapErr().reason).toBe(
      'invalid_key',
    );
    // the deprecated name still answers the same Result for one release
    expect((await log.publicJwk())._unsafeUnwrap()).toEqual(KEYS.publicJwk);
  });

  it('generateAuditKeys returns both secret values and the public key', async () => {
    const k = await generateAuditKeys();
    expect(k.commitmentKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const jwk = JSON.parse(k.signingKey);
    expect(jwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', d: expect.any(String) });
    expect(k.publicJwk.d).toBeUndefined();
    expect(k.env.AGENTGOV_SECRET_AUDIT_SIGNING_KEY).toBe(k.signingKey);
    expect((await generateAuditKeys()).commitmentKey).not.toBe(k.commitmentKey);
  });

  it('refuses to checkpoint a broken chain', async () => {
    const { log, store } = setup();
    await log.append(entryInput());
    await store.anonymize('t1', 'alice', 'anon:0000000000000000'); // a wrong placeholder
    const r = await log.checkpoint('t1');
    expect(r._unsafeUnwrapErr().message).toMatch(/broken audit chain/);
  });
  it('a proof the store cannot answer is 503 service_unavailable, not an internal error', async () => {
    const store = new InMemoryAuditStore();
    const { log } = setup(store);
    await log.append(entryInput());
    await log.checkpoint('t1');
    const down = () => Promise.reject(new Error('connection terminated'));
    store.get = down;
    store.head = down;
    const inclusion = await log.proveInclusion('t1', 'x');
    expect(inclusion._unsafeUnwrapErr()).toMatchObject({ code: 'service_unavailable', status: 503 });
    const consistency = await log.proveConsistency('t1', 1, 1);
    expect(consistency._unsafeUnwrapErr()).toMatchObject({ code: 'service_unavailable', status: 503 });
  });
});
