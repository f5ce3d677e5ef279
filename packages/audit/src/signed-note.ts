/**
 * Checkpoints in the standard transparency-log formats, so existing tooling and witnesses can read
 * them: the C2SP `tlog-checkpoint` body (origin line, tree size, base64 root hash) in a C2SP
 * `signed-note` with an Ed25519 signature (signature type 0x01).
 *
 *   agentgov/acme\n
 *   42\n
 *   <base64 of the 32-byte root hash>\n
 *   \n
 *   — agentgov/acme <base64(4-byte key id || 64-byte Ed25519 signature)>\n
 *
 * The key id is the first 4 bytes of SHA-256(name || 0x0A || 0x01 || public key); a verifier key
 * is written `<name>+<key id, 8 hex digits>+<base64(0x01 || public key)>` (the Go `note` package's
 * form). Ed25519 signatures are deterministic, so a stored tree head always yields the same note.
 */
import { createHash, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import type { JWK } from 'jose';
import { err, ok, type Result } from 'neverthrow';
import { VerificationError } from './verification';

const ED25519 = 0x01;
const EM_DASH = '\u2014';
const NAME_RE = /^[^\s+]+$/;

export interface CheckpointBody {
  /** Unique name of the log (e.g. `agentgov/<tenant id>` or `<host>/agentgov/<tenant id>`). */
  origin: string;
  treeSize: number;
  /** Merkle root, hex (as stored). */
  rootHash: string;
}

/** @deprecated The error of `openNote` / `verifyCheckpointNote` is a `VerificationError` (`reason` is now a code). */
export type NoteVerificationError = VerificationError;

const invalidKey = (message: string) => err(new VerificationError('invalid_key', message));

function rawPublicKey(publicJwk: JWK): Buffer {
  if (publicJwk.kty !== 'OKP' || publicJwk.crv !== 'Ed25519' || typeof publicJwk.x !== 'string') {
    throw new Error('signed notes need an Ed25519 key');
  }
  return Buffer.from(publicJwk.x, 'base64url');
}

/** The 4-byte key id of an Ed25519 note key. */
export function noteKeyId(name: string, publicJwk: JWK): Buffer {
  const h = createHash('sha256');
  h.update(name);
  h.update(Buffer.from([0x0a, ED25519]));
  h.update(rawPublicKey(publicJwk));
  return h.digest().subarray(0, 4);
}

/** The verifier key text (`<name>+<hex key id>+<base64(0x01 || key)>`) of an Ed25519 public JWK. */
export function noteVerifierKey(name: string, publicJwk: JWK): string {
  const key = Buffer.concat([Buffer.from([ED25519]), rawPublicKey(publicJwk)]);
  return `${name}+${noteKeyId(name, publicJwk).toString('hex')}+${key.toString('base64')}`;
}

/** The tlog-checkpoint body: origin, size and base64 root hash, each on its own line. */
export function checkpointBody(body: CheckpointBody): string {
  if (!NAME_RE.test(body.origin)) throw new Error('the origin must be one word without "+"');
  return `${body.origin}\n${body.treeSize}\n${Buffer.from(body.rootHash, 'hex').toString('base64')}\n`;
}

/** An Ed25519 note key: the private key (a node:crypto KeyObject) and its public JWK. */
export interface NoteKey {
  privateKey: KeyObject;
  publicJwk: JWK;
}

/** Signs `text` (which ends in a newline) as a signed note under the key `name`. */
export function signNote(text: string, name: string, key: NoteKey): string {
  if (!text.endsWith('\n')) throw new Error('a note text ends with a newline');
  const signature = sign(null, Buffer.from(text, 'utf8'), key.privateKey);
  const blob = Buffer.concat([noteKeyId(name, key.publicJwk), signature]).toString('base64');
  return `${text}\n${EM_DASH} ${name} ${blob}\n`;
}

/** The checkpoint as a signed note (C2SP tlog-checkpoint + signed-note, Ed25519). */
export function checkpointNote(body: CheckpointBody, key: NoteKey): string {
  return signNote(checkpointBody(body), body.origin, key);
}

/** The origin line of a tenant's log: `agentgov/<tenant id, percent-encoded>`. */
export function checkpointOrigin(tenantId: string): string {
  return `agentgov/${encodeURIComponent(tenantId)}`;
}

export interface VerifiedCheckpointNote {
  origin: string;
  treeSize: number;
  /** Root hash, hex. */
  rootHash: string;
  /** Extension lines after the root hash, if any. */
  extensions: string[];
}

/**
 * Opens a signed note with a verifier key (`<name>+<id>+<key>`): a signature line of that name and
 * key id must verify over the note text, which is returned. Signatures by other keys (witnesses,
 * cosigners) are ignored.
 */
export function openNote(note: string, verifierKey: string): Result<string, VerificationError> {
  // The key is standard base64, which may itself contain '+': split at the first two only.
  const first = verifierKey.indexOf('+');
  const second = first < 0 ? -1 : verifierKey.indexOf('+', first + 1);
  if (first <= 0 || second < 0) return invalidKey('the verifier key is not <name>+<id>+<key>');
  const name = verifierKey.slice(0, first);
  const idHex = verifierKey.slice(first + 1, second);
  const keyB64 = verifierKey.slice(second + 1);
  const keyBytes = Buffer.from(keyB64, 'base64');
  if (keyBytes.length !== 33 || keyBytes[0] !== ED25519)
    return invalidKey('the verifier key is not an Ed25519 note key');
  const split = note.lastIndexOf('\n\n');
  if (split < 0 || !note.endsWith('\n')) {
    return err(new VerificationError('invalid_signature', 'not a signed note'));
  }
  const text = note.slice(0, split + 1);
  const signatures = note.slice(split + 2, -1).split('\n');
  const publicJwk: JWK = { kty: 'OKP', crv: 'Ed25519', x: keyBytes.subarray(1).toString('base64url') };
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey({ key: publicJwk as never, format: 'jwk' });
  } catch {
    return invalidKey('the verifier key is not an Ed25519 public key');
  }
  if (noteKeyId(name, publicJwk).toString('hex') !== idHex)
    return invalidKey('the verifier key id does not match its key');
  const prefix = `${EM_DASH} ${name} `;
  const verified = signatures.some((line) => {
    if (!line.startsWith(prefix)) return false;
    const blob = Buffer.from(line.slice(prefix.length), 'base64');
    if (blob.length !== 68 || blob.subarray(0, 4).toString('hex') !== idHex) return false;
    return verify(null, Buffer.from(text, 'utf8'), publicKey, blob.subarray(4));
  });
  return verified
    ? ok(text)
    : err(new VerificationError('invalid_signature', `no valid signature by ${name}`));
}

/** Opens a checkpoint note (see `openNote`) and parses its tlog-checkpoint body. */
export function verifyCheckpointNote(
  note: string,
  verifierKey: string,
): Result<VerifiedCheckpointNote, VerificationError> {
  return openNote(note, verifierKey).andThen((text) => {
    const [origin, size, root, ...extensions] = text.slice(0, -1).split('\n');
    const rootBytes = Buffer.from(root ?? '', 'base64');
    if (!origin || !/^(0|[1-9][0-9]*)$/.test(size ?? '') || rootBytes.length !== 32) {
      return err(new VerificationError('unexpected_type', 'the note is not a tlog checkpoint'));
    }
    return ok({ origin, treeSize: Number(size), rootHash: rootBytes.toString('hex'), extensions });
  });
}
