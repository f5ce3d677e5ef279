/**
 * Governed tool calls with the hash-chained audit log on PostgreSQL, reached through a TCP proxy
 * this test controls (the shared PostgreSQL is never touched): while the database is cut, every
 * call is refused with `audit_unavailable` and none reaches the upstream (the write-ahead entry
 * cannot be written); the process stays up; when the database is back the calls go through again
 * by themselves; every call whose result was delivered has both its entries (write-ahead and
 * outcome) in the database, and the tenant's chain verifies.
 */
import { randomBytes } from 'node:crypto';
import { createAuditLog, generateAuditKeys, verifyTenant } from '@agentgov/audit';
import { InMemorySecretStore } from '@agentgov/core';
import { describeWithService, startTcpProxy, type TcpProxy } from '@agentgov/core/testing';
import { openStore, type SqlStores, sql } from '@agentgov/store-kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { governTools, refusalOf } from '../src/index';
import { makeProxyWorld, newNotesState, notesServer } from './harness';

const TENANT = 'acme';

await describeWithService(
  'governed tool calls, the audit log on PostgreSQL cut and restored (postgres)',
  'TEST_DATABASE_URL',
  (url) => {
    const schema = `mcp_outage_${randomBytes(4).toString('hex')}`;
    let proxy: TcpProxy;
    let stores: SqlStores;
    const crashes: unknown[] = [];
    const onCrash = (error: unknown) => crashes.push(error);

    beforeAll(async () => {
      const target = new URL(url);
      proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
      target.host = proxy.address;
      stores = await openStore({
        database: target.href,
        schema,
        pool: { max: 2, connectionTimeoutMillis: 2_000 },
      });
      process.on('uncaughtException', onCrash).on('unhandledRejection', onCrash);
    }, 60_000);

    afterAll(async () => {
      process.off('uncaughtException', onCrash).off('unhandledRejection', onCrash);
      proxy?.restore();
      if (stores) {
        await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(stores.db).catch(() => {});
        await stores.close();
      }
      await proxy?.close();
    });

    it('refuses every call while the database is away (the upstream never called), recovers, loses nothing delivered', async () => {
      const keys = await generateAuditKeys();
      const secrets = new InMemorySecretStore({
        'audit-commitment-key': keys.commitmentKey,
        'audit-signing-key': keys.signingKey,
      });
      const log = createAuditLog({ store: stores.audit, secrets });
      const world = await makeProxyWorld();
      const state = newNotesState({ a: 'A' });
      const governed = governTools(notesServer(state), {
        namespace: 'local',
        identity: { tenantId: TENANT, userId: 'alice' },
        engine: world.engine,
        audit: log,
      });
      try {
        await governed.listTools();
        const delivered: number[] = [];
        const call = async (n: number) => {
          const result = await governed.callTool('local__read_file', { path: 'a', n });
          expect(result.content).toEqual([{ type: 'text', text: 'A' }]);
          delivered.push(n);
        };
        for (let n = 0; n < 3; n++) await call(n);
        expect(state.calls).toHaveLength(3);

        proxy.cut();
        for (let n = 3; n < 6; n++) {
          const error = await call(n).then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(refusalOf(error)?.refusal).toBe('audit_unavailable');
        }
        // Nothing went upstream while nothing could be recorded.
        expect(state.calls).toHaveLength(3);

        proxy.restore();
        // Back by itself: the pool connects again on the next call. A few calls refused while it
        // does are fine — refused as the log being away, nothing else; a bounded number of tries,
        // not a time limit. (The cut is only ever made between calls: a commit whose
        // acknowledgement is lost in the cut would record a call its caller was told failed.)
        let n = 6;
        for (; n < 26 && !delivered.includes(n - 1); n++) {
          const error = await call(n).then(
            () => undefined,
            (e: unknown) => e,
          );
          if (error !== undefined) expect(refusalOf(error)?.refusal).toBe('audit_unavailable');
        }
        expect(delivered.at(-1)).toBe(n - 1);
        await call(n);

        // Every delivered call has its write-ahead entry, then its outcome, under one request id.
        const { records } = await stores.audit.query(TENANT, {}, { offset: 0, limit: 1000 });
        const entries = records.map((r) => r.entry); // in chain order
        const byRequest = new Map<string, string[]>();
        for (const e of entries)
          byRequest.set(e.requestId, [...(byRequest.get(e.requestId) ?? []), e.actionType]);
        const succeeded = entries.filter(
          (e) => e.actionType === 'tool_invocation' && e.outcome === 'success',
        );
        expect(succeeded).toHaveLength(delivered.length);
        for (const e of succeeded)
          expect(byRequest.get(e.requestId)).toEqual(['policy_decision', 'tool_invocation']);
        // As many upstream calls as write-ahead entries: none went unrecorded.
        const ahead = entries.filter((e) => e.actionType === 'policy_decision');
        expect(ahead).toHaveLength(state.calls.length);
        const report = await verifyTenant(stores.audit, TENANT, { secrets });
        expect(report).toMatchObject({ ok: true, identifiers: 'checked' });
        expect(crashes).toEqual([]);
      } finally {
        await governed.close();
        await world.close();
      }
    }, 120_000);
  },
);
