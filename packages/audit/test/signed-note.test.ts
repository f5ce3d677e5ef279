import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import type { JWK } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  checkpointBody,
  checkpointNote,
  noteVerifierKey,
  openNote,
  signNote,
  verifyCheckpointNote,
} from '../src/index';

// The reference vector of Go's golang.org/x/mod/sumdb/note (note_test.go).
const VKEY = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
const SEED = Buffer.from('AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz', 'base64').subarray(1);
const TEXT =
  "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const GO_NOTE = `${TEXT}\n— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`;

function peterKey() {
  const x = Buffer.from(VKEY.split('+')[2]!, 'base64').subarray(1).toString('base64url');
  const privateJwk = { kty: 'OKP', crv: 'Ed25519', x, d: SEED.toString('base64url') };
  return {
    privateKey: createPrivateKey({ key: privateJwk, format: 'jwk' }),
    publicJwk: { kty: 'OKP', crv: 'Ed25519', x } as JWK,
  };
}

describe('C2SP signed notes', () => {
  it('reproduces the Go reference note byte for byte, and its verifier key', () => {
    const key = peterKey();
    expect(noteVerifierKey('PeterNeumann', key.publicJwk)).toBe(VKEY);
    expect(signNote(TEXT, 'PeterNeumann', key)).toBe(GO_NOTE);
    expect(openNote(GO_NOTE, VKEY)._unsafeUnwrap()).toBe(TEXT);
  });

  it('refuses a changed text, a changed signature, another key, and malformed verifier keys', () => {
    expect(openNote(GO_NOTE.replace('cryptography', 'cryptographi'), VKEY)._unsafeUnwrapErr()).toMatchObject({
      code: 'invalid_type',
      reason: 'invalid_signature',
    });
    expect(openNote(GO_NOTE, 'a+b+c')._unsafeUnwrapErr().reason).toBe('invalid_key');
    expect(openNote(GO_NOTE.replace('x08go', 'x08gp'), VKEY).isErr()).toBe(true);
    const other = generateKeyPairSync('ed25519');
    const otherJwk = other.publicKey.export({ format: 'jwk' }) as JWK;
    expect(openNote(GO_NOTE, noteVerifierKey('PeterNeumann', otherJwk)).isErr()).toBe(true);
    for (const bad of [
      'PeterNeumann',
      'PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW',
      'a+b+c',
    ])
      expect(openNote(GO_NOTE, bad).isErr(), bad).toBe(true);
    // a witness's extra signature line does not disturb verification
    expect(openNote(`${GO_NOTE}— witness AAAA\n`, VKEY).isOk()).toBe(true);
  });

  it('writes and reads a tlog checkpoint', () => {
    const pair = generateKeyPairSync('ed25519');
    const key = { privateKey: pair.privateKey, publicJwk: pair.publicKey.export({ format: 'jwk' }) as JWK };
    const rootHash = 'ab'.repeat(32);
    const body = checkpointBody({ origin: 'agentgov/acme', treeSize: 42, rootHash });
    expect(body).toBe(`agentgov/acme\n42\n${Buffer.from(rootHash, 'hex').toString('base64')}\n`);
    const note = checkpointNote({ origin: 'agentgov/acme', treeSize: 42, rootHash }, key);
    const vkey = noteVerifierKey('agentgov/acme', key.publicJwk);
    expect(verifyCheckpointNote(note, vkey)._unsafeUnwrap()).toEqual({
      origin: 'agentgov/acme',
      treeSize: 42,
      rootHash,
      extensions: [],
    });
    expect(verifyCheckpointNote(note.replace('\n42\n', '\n43\n'), vkey)._unsafeUnwrapErr().reason).toBe(
      'invalid_signature',
    );
    expect(
      verifyCheckpointNote(signNote('just text\n', 'agentgov/acme', key), vkey)._unsafeUnwrapErr().reason,
    ).toBe('unexpected_type');
    expect(() => checkpointBody({ origin: 'two words', treeSize: 1, rootHash })).toThrow();
  });
});
