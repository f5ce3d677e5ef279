/**
 * Verifies an audit entry's place in the log in the browser, with WebCrypto only: the checkpoint's
 * signatures (the C2SP signed note and the JWS, Ed25519) and the RFC 9162 inclusion proof of the
 * entry's leaf up to the signed root. Each check is reported, passed or not, with what it compared.
 */
import type { Schemas } from './api/client';

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

const enc = new TextEncoder();
const EM_DASH = '\u2014';

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
function fromHex(h: string): Uint8Array {
  const out = new Uint8Array(h.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(h.slice(2 * i, 2 * i + 2), 16);
  return out;
}
function fromBase64(b64: string): Uint8Array {
  const s = atob(
    b64
      .replace(/-/g, '+')
      .replace(/_/g, '/')
      .padEnd(Math.ceil(b64.length / 4) * 4, '='),
  );
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}
const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};
async function sha256(data: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', data as Uint8Array<ArrayBuffer>));
}

/** RFC 9162 §2.1.3.2: the root the proof leads to from the leaf hash, or undefined when malformed. */
export async function rootFromInclusion(
  leafHash: string,
  leafIndex: number,
  treeSize: number,
  proof: readonly string[],
): Promise<string | undefined> {
  if (leafIndex >= treeSize || leafIndex < 0) return undefined;
  let fn = leafIndex;
  let sn = treeSize - 1;
  let r = fromHex(leafHash);
  for (const p of proof) {
    if (sn === 0) return undefined;
    const sibling = fromHex(p);
    if (fn % 2 === 1 || fn === sn) {
      r = await sha256(concat(Uint8Array.of(1), sibling, r));
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = await sha256(concat(Uint8Array.of(1), r, sibling));
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 ? hex(r) : undefined;
}

interface NoteKey {
  name: string;
  keyId: string;
  key: CryptoKey;
}

async function noteKey(verifierKey: string): Promise<NoteKey> {
  const first = verifierKey.indexOf('+');
  const second = first < 0 ? -1 : verifierKey.indexOf('+', first + 1);
  if (first <= 0 || second < 0) throw new Error('the verifier key is not <name>+<id>+<key>');
  const name = verifierKey.slice(0, first);
  const keyId = verifierKey.slice(first + 1, second);
  const raw = fromBase64(verifierKey.slice(second + 1));
  if (raw.length !== 33 || raw[0] !== 1) throw new Error('the verifier key is not an Ed25519 note key');
  const id = hex(
    (await sha256(concat(enc.encode(name), Uint8Array.of(0x0a, 1), raw.subarray(1)))).subarray(0, 4),
  );
  if (id !== keyId) throw new Error('the verifier key id does not match its key');
  const key = await crypto.subtle.importKey(
    'raw',
    raw.slice(1) as Uint8Array<ArrayBuffer>,
    { name: 'Ed25519' },
    false,
    ['verify'],
  );
  return { name, keyId, key };
}

async function verifyNote(
  note: string,
  k: NoteKey,
): Promise<{ origin: string; treeSize: number; rootHash: string }> {
  const split = note.lastIndexOf('\n\n');
  if (split < 0 || !note.endsWith('\n')) throw new Error('not a signed note');
  const text = note.slice(0, split + 1);
  const prefix = `${EM_DASH} ${k.name} `;
  let verified = false;
  for (const line of note.slice(split + 2, -1).split('\n')) {
    if (!line.startsWith(prefix)) continue;
    const blob = fromBase64(line.slice(prefix.length));
    if (blob.length !== 68 || hex(blob.subarray(0, 4)) !== k.keyId) continue;
    const sig = blob.subarray(4) as Uint8Array<ArrayBuffer>;
    if (await crypto.subtle.verify('Ed25519', k.key, sig, enc.encode(text))) verified = true;
  }
  if (!verified) throw new Error(`no valid signature by ${k.name}`);
  const [origin = '', size = '', root = ''] = text.split('\n');
  return { origin, treeSize: Number(size), rootHash: hex(fromBase64(root)) };
}

async function verifyJws(
  jws: string,
  k: NoteKey,
): Promise<{ treeSize: number; rootHash: string; tenantId: string }> {
  const [h = '', p = '', s = ''] = jws.split('.');
  const header = JSON.parse(new TextDecoder().decode(fromBase64(h))) as { alg?: string };
  if (header.alg !== 'EdDSA')
    throw new Error(`the JWS is signed with ${header.alg}, not the note's Ed25519 key`);
  const ok = await crypto.subtle.verify(
    'Ed25519',
    k.key,
    fromBase64(s) as Uint8Array<ArrayBuffer>,
    enc.encode(`${h}.${p}`),
  );
  if (!ok) throw new Error('the JWS signature does not verify');
  return JSON.parse(new TextDecoder().decode(fromBase64(p)));
}

/** The checkpoint's key and signatures; `signedRoot` is set only when every signature holds. */
async function verifyCheckpoint(
  checkpoint: Schemas['AuditCheckpoint'],
  add: (name: string, ok: boolean, detail: string) => void,
): Promise<string | undefined> {
  let key: NoteKey | undefined;
  try {
    key = await noteKey(checkpoint.verifierKey);
    add(
      'Checkpoint key',
      true,
      `Ed25519 key ${key.name}+${key.keyId} (published by this server: compare it with the key you trust)`,
    );
  } catch (e) {
    add('Checkpoint key', false, (e as Error).message);
    return undefined;
  }
  let signedRoot: string | undefined;
  try {
    const body = await verifyNote(checkpoint.note, key);
    const same = body.treeSize === checkpoint.treeSize && body.rootHash === checkpoint.rootHash;
    add(
      'Signed note (C2SP checkpoint)',
      same,
      same
        ? `signature valid over ${body.origin}, ${body.treeSize} entries, root ${body.rootHash}`
        : `signed for ${body.treeSize} entries, root ${body.rootHash}: not the checkpoint served`,
    );
    if (same) signedRoot = body.rootHash;
  } catch (e) {
    add('Signed note (C2SP checkpoint)', false, (e as Error).message);
  }
  try {
    const payload = await verifyJws(checkpoint.jws, key);
    const same = payload.treeSize === checkpoint.treeSize && payload.rootHash === checkpoint.rootHash;
    add(
      'Signed checkpoint (JWS)',
      same,
      same
        ? `EdDSA signature valid over tenant ${payload.tenantId}, ${payload.treeSize} entries, root ${payload.rootHash}`
        : 'the JWS names another tree than the checkpoint served',
    );
    return same ? signedRoot : undefined;
  } catch (e) {
    add('Signed checkpoint (JWS)', false, (e as Error).message);
    return undefined;
  }
}

/** Every check, in order; later checks still run when an earlier one fails, where they can. */
export async function verifyInclusion(
  entryId: string,
  proof: Schemas['InclusionProof'],
  checkpoint: Schemas['AuditCheckpoint'],
): Promise<Check[]> {
  const checks: Check[] = [];
  const add = (name: string, ok: boolean, detail: string) => checks.push({ name, ok, detail });
  const signedRoot = await verifyCheckpoint(checkpoint, add);
  add(
    'Proof is for this entry',
    proof.entryId === entryId && proof.treeSize === checkpoint.treeSize,
    `entry ${proof.entryId}, leaf ${proof.leafIndex} (entry #${proof.seq}) in a tree of ${proof.treeSize} entries`,
  );
  const root = await rootFromInclusion(proof.leafHash, proof.leafIndex, proof.treeSize, proof.proof);
  const reaches = root !== undefined && signedRoot !== undefined && root === signedRoot;
  add(
    'Inclusion proof (RFC 9162)',
    reaches,
    root === undefined
      ? 'the proof is malformed for this leaf and tree size'
      : reaches
        ? `leaf ${proof.leafHash} and ${proof.proof.length} sibling hashes lead to the signed root ${root}`
        : `leaf ${proof.leafHash} and ${proof.proof.length} sibling hashes lead to ${root}, not the signed root ${signedRoot ?? checkpoint.rootHash}: the entry or the log was changed after the checkpoint was signed`,
  );
  return checks;
}

/** RFC 9162 §2.1.4.2: does the proof show the tree of `size1` (root1) is a prefix of the tree of `size2` (root2)? */
export async function consistent(
  size1: number,
  root1: string,
  size2: number,
  root2: string,
  proof: readonly string[],
): Promise<boolean> {
  if (size1 < 1 || size1 > size2) return false;
  if (size1 === size2) return proof.length === 0 && root1 === root2;
  const path = proof.map(fromHex);
  // A first tree of a power-of-two size is itself a node of the second: its root starts the path.
  if ((size1 & (size1 - 1)) === 0) path.unshift(fromHex(root1));
  let fn = size1 - 1;
  let sn = size2 - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  const [first, ...rest] = path;
  if (!first) return false;
  let fr = first;
  let sr = first;
  for (const c of rest) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = await sha256(concat(Uint8Array.of(1), c, fr));
      sr = await sha256(concat(Uint8Array.of(1), c, sr));
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      sr = await sha256(concat(Uint8Array.of(1), sr, c));
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && hex(fr) === root1 && hex(sr) === root2;
}

/**
 * Checkpoints over time: the latest checkpoint's signatures, and the RFC 9162 consistency proof
 * that the tree you kept (its size and root) is a prefix of the latest signed one — the log only
 * grew, no entry before it was changed or removed.
 */
export async function verifyGrowth(
  kept: { treeSize: number; rootHash: string },
  latest: Schemas['AuditCheckpoint'],
  proof: Schemas['ConsistencyProof'],
): Promise<Check[]> {
  const checks: Check[] = [];
  const add = (name: string, ok: boolean, detail: string) => checks.push({ name, ok, detail });
  const signedRoot = await verifyCheckpoint(latest, add);
  const ok =
    signedRoot !== undefined &&
    proof.size1 === kept.treeSize &&
    proof.size2 === latest.treeSize &&
    (await consistent(kept.treeSize, kept.rootHash, latest.treeSize, signedRoot, proof.proof));
  add(
    'Consistency proof (RFC 9162)',
    ok,
    ok
      ? `the tree of ${kept.treeSize} entries (root ${kept.rootHash}) is the start of the signed tree of ${latest.treeSize} entries: the log only grew`
      : `the tree of ${kept.treeSize} entries with root ${kept.rootHash} is not the start of the signed tree of ${latest.treeSize} entries: entries before it were changed or removed`,
  );
  return checks;
}
