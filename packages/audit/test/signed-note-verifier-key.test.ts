/**
 * A note verifier key is `<name>+<id hex>+<base64 key>`, and standard base64 may contain '+':
 * verification must split at the first two '+' only (about half of all Ed25519 keys have one).
 */
import { createPrivateKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkpointNote, generateAuditKeys, noteVerifierKey, verifyCheckpointNote } from '../src/index';

describe('signed-note verifier keys', () => {
  it('verify whether or not the base64 key contains "+"', async () => {
    const seen = new Set<boolean>();
    for (let i = 0; i < 64 && seen.size < 2; i++) {
      const keys = await generateAuditKeys();
      const jwk = JSON.parse(keys.signingKey);
      const privateKey = createPrivateKey({ key: jwk, format: 'jwk' });
      const body = { origin: 'agentgov/acme', treeSize: 3, rootHash: 'ab'.repeat(32) };
      const note = checkpointNote(body, { privateKey, publicJwk: keys.publicJwk });
      const verifier = noteVerifierKey(body.origin, keys.publicJwk);
      const keyPart = verifier.split('+').slice(2).join('+');
      seen.add(keyPart.includes('+'));
      const verified = verifyCheckpointNote(note, verifier);
      expect(verified.isOk(), JSON.stringify(verified)).toBe(true);
    }
    expect([...seen].sort()).toEqual([false, true]);
  });
});
