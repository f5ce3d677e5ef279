/** biome-ignore-all lint/suspicious/noExplicitAny: JSON bodies of a black-box HTTP suite are read without schemas */
/** Audit proofs: the latest checkpoint (JWS and C2SP signed note), inclusion and consistency proofs. */
import { verifyCheckpoint, verifyCheckpointNote, verifyConsistency, verifyInclusion } from '@agentgov/audit';
import type { AuditPlugin } from '@agentgov/audit/gateway';
import { describe, expect, it } from 'vitest';
import type { Harness } from '../harness';

export function auditProofCases(h: Harness): void {
  describe('audit proofs', () => {
    it('checkpoint: 404 before the first; JWS and signed note verify; text/plain gives the note', async () => {
      h.expectError(await h.call('/audit/checkpoint', { as: 'otherTenantAdmin' }), 404, 'NOT_FOUND');
      const audit = h.gov.plugins.find((p) => p.name === 'audit') as AuditPlugin;
      const issued = await audit.service.log.checkpoint('acme');
      expect(issued.isOk()).toBe(true);
      const r = await h.call('/audit/checkpoint', { as: 'enterpriseAdmin' });
      expect(r.status, r.text).toBe(200);
      expect(r.body).toMatchObject({ tenantId: 'acme', origin: 'agentgov/acme' });
      const jwk = (await audit.service.log.loadPublicJwk())._unsafeUnwrap();
      expect((await verifyCheckpoint(r.body.jws, jwk))._unsafeUnwrap()).toMatchObject({
        treeSize: r.body.treeSize,
        rootHash: r.body.rootHash,
      });
      expect(verifyCheckpointNote(r.body.note, r.body.verifierKey)._unsafeUnwrap()).toMatchObject({
        origin: 'agentgov/acme',
        treeSize: r.body.treeSize,
        rootHash: r.body.rootHash,
      });
      const text = await h.call('/audit/checkpoint', {
        as: 'enterpriseAdmin',
        headers: { accept: 'text/plain' },
      });
      expect(text.headers.get('content-type')).toContain('text/plain');
      expect(text.text).toBe(r.body.note);
      h.expectError(await h.call('/audit/checkpoint', { as: 'user' }), 403, 'forbidden');
    });

    it('inclusion and consistency proofs verify against the checkpoint; bad input is 400, others 404', async () => {
      const cp = (await h.call('/audit/checkpoint', { as: 'enterpriseAdmin' })).body;
      // newest first: the last entry of the page is the oldest, inside the checkpointed tree
      const page = await h.call('/audit?page_size=1000', { as: 'enterpriseAdmin' });
      const entry = page.body.entries.at(-1);
      const inc = await h.call(`/audit/${entry.id}/proof`, { as: 'enterpriseAdmin' });
      expect(inc.status, inc.text).toBe(200);
      expect(inc.body.treeSize).toBe(cp.treeSize);
      expect(inc.body.rootHash).toBe(cp.rootHash);
      expect(
        verifyInclusion(
          inc.body.leafHash,
          inc.body.leafIndex,
          inc.body.treeSize,
          inc.body.proof,
          cp.rootHash,
        ).isOk(),
      ).toBe(true);
      const con = await h.call(`/audit/consistency?from=1&to=${cp.treeSize}`, { as: 'enterpriseAdmin' });
      expect(con.status, con.text).toBe(200);
      expect(con.body.root2).toBe(cp.rootHash);
      expect(verifyConsistency(1, cp.treeSize, con.body.proof, con.body.root1, con.body.root2).isOk()).toBe(
        true,
      );
      h.expectError(
        await h.call('/audit/consistency?from=0&to=1', { as: 'enterpriseAdmin' }),
        400,
        'invalid_type',
      );
      h.expectError(
        await h.call('/audit/consistency?from=1', { as: 'enterpriseAdmin' }),
        400,
        'missing_type',
      );
      h.expectError(
        await h.call(`/audit/consistency?from=1&to=${cp.treeSize + 10_000}`, { as: 'enterpriseAdmin' }),
        400,
      );
      h.expectError(await h.call(`/audit/${entry.id}/proof?treeSize=abc`, { as: 'enterpriseAdmin' }), 400);
      h.expectError(await h.call(`/audit/${entry.id}/proof`, { as: 'otherTenantAdmin' }), 404, 'NOT_FOUND');
      h.expectError(await h.call(`/audit/${entry.id}/proof`, { as: 'orgAdmin' }), 403, 'forbidden');
    });
  });
}
