/**
 * The domain on the SQL ExchangeStore (PGlite in memory, and PostgreSQL when TEST_DATABASE_URL is
 * set): the compare-and-set on round and transcript length holds against a real database.
 */
import { randomBytes } from 'node:crypto';
import { describeWithService } from '@agentgov/core/testing';
import { openStore, type SqlStores } from '@agentgov/store-kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerWith, itemsAt, makeWorld, type World } from './harness';

function scenarios(name: string, open: () => Promise<{ stores: SqlStores; cleanup: () => Promise<void> }>) {
  describe(`interchange on ${name}`, () => {
    let opened: Awaited<ReturnType<typeof open>>;
    let w: World;
    beforeAll(async () => {
      opened = await open();
      // One deployment: every agent of the tenant records into the same database.
      w = await makeWorld({
        storeFor: () => opened.stores.exchanges,
        answer: { bob: answerWith(itemsAt('public', 'internal', 'restricted')) },
      });
    }, 60_000);
    afterAll(async () => opened?.cleanup());

    it('a query is answered, filtered and stored once for both sides', async () => {
      const r = (
        await w.nodes.alice.query({
          to: 'agent-bob',
          message: { text: 'q', items: itemsAt('internal', 'restricted') },
        })
      )._unsafeUnwrap();
      expect(r.reply?.items.map((i) => i.classification)).toEqual(['public', 'internal']);
      const stored = await opened.stores.exchanges.get('acme', r.exchange.exchangeId);
      expect(stored?.outcome).toBe('resolved');
      expect(stored?.transcript.filter((t) => t.kind === 'reply')).toHaveLength(1);
      expect(
        await opened.stores.exchanges.countTranscriptEntries('acme', { kind: 'reply', automatic: true }),
      ).toBeGreaterThan(0);
    });

    it('concurrent follow-ups: exactly one passes each round; the limit holds', async () => {
      const first = (
        await w.nodes.alice.query({ to: 'agent-bob', message: { text: 'r1' }, keepOpen: true })
      )._unsafeUnwrap();
      const id = first.exchange.exchangeId;
      for (let i = 0; i < 3; i++) {
        await Promise.all(
          Array.from({ length: 4 }, () =>
            w.nodes.alice.followUp(id, { message: { text: 'more' }, keepOpen: true }),
          ),
        );
      }
      const x = await opened.stores.exchanges.get('acme', id);
      expect(x?.currentRound).toBe(3);
      expect(x?.outcome).toBe('escalated');
      expect(x?.transcript.filter((t) => t.kind === 'message')).toHaveLength(3);
    });

    it('a commitment: approve and reject race, one decision wins; the answer is collected once', async () => {
      const r = (
        await w.nodes.alice.query({
          to: 'agent-bob',
          exchangeType: 'commitment_request',
          message: { text: 'own it?' },
        })
      )._unsafeUnwrap();
      expect(r.status).toBe('pending');
      const both = await Promise.all([
        w.nodes.bob.resolveApproval({ exchangeId: r.exchange.exchangeId, by: 'bob', decision: 'approved' }),
        w.nodes.bob.resolveApproval({ exchangeId: r.exchange.exchangeId, by: 'bob', decision: 'rejected' }),
      ]);
      expect(both.filter((b) => b.isOk())).toHaveLength(1);
      const got = (await w.nodes.alice.collect(r.exchange.exchangeId))._unsafeUnwrap();
      expect(['answered', 'declined']).toContain(got.status);
      const x = await opened.stores.exchanges.get('acme', r.exchange.exchangeId);
      expect(x?.transcript.filter((t) => t.kind === 'human_decision')).toHaveLength(1);
      expect(x?.transcript.filter((t) => t.kind === 'reply')).toHaveLength(1);
    });
  });
}

scenarios('PGlite', async () => {
  const stores = await openStore({ database: 'memory://' });
  return { stores, cleanup: () => stores.close() };
});

await describeWithService('interchange on PostgreSQL', 'TEST_DATABASE_URL', (url) => {
  scenarios('PostgreSQL', async () => {
    const schema = `agentgov_t_${randomBytes(6).toString('hex')}`;
    const stores = await openStore({ database: url, schema });
    return {
      stores,
      cleanup: async () => {
        await stores.db.schema.dropSchema(schema).ifExists().cascade().execute();
        await stores.close();
      },
    };
  });
});
