/**
 * `agentgov audit verify-proof FILE (--public-key JWK | --verifier-key KEY) [--checkpoint FILE]
 * [--json]`: checks a proof file of `audit prove` offline. The checkpoint's signed note must
 * verify with the log's key given here (never with a key the file or the server supplies); the
 * inclusion proof must lead from the entry's leaf hash to the signed root; the consistency proof
 * must show the earlier signed tree (`--checkpoint`, else the file's `previousCheckpoint`) is a
 * prefix of the signed tree. With `--checkpoint` and no consistency proof, the saved checkpoint
 * must be the very tree the proof is against. Exit 0 verified, 1 does not verify, 2 unusable input.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  noteVerifierKey,
  publicJwkOf,
  verifyCheckpointNote,
  verifyConsistency,
  verifyInclusion,
} from '@agentgov/audit';
import { type CliIo, EXIT, parseUsage, UsageError } from '../io';
import { readCheckpoint, readProofFile, type SavedCheckpoint } from '../proof-file';

const USAGE =
  'usage: agentgov audit verify-proof FILE (--public-key JWK-FILE | --verifier-key KEY) [--checkpoint FILE] [--json]';

interface Check {
  ok: boolean;
  reason?: string;
}
interface SignedTree extends Check {
  origin: string;
  treeSize: number;
  rootHash: string;
}

function keyFor(values: {
  'public-key'?: string | undefined;
  'verifier-key'?: string | undefined;
}): (origin: string) => string {
  if (values['verifier-key'] && values['public-key'])
    throw new UsageError('give --public-key or --verifier-key, not both');
  const given = values['verifier-key'];
  if (given) return () => given;
  const file = values['public-key'];
  if (!file) {
    throw new UsageError(
      `the log's public key is required (--public-key or --verifier-key): a proof is never checked with a key it carries itself\n${USAGE}`,
    );
  }
  let jwk: Parameters<typeof publicJwkOf>[0];
  try {
    jwk = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`--public-key ${file}: not a readable JWK (${(error as Error).message})`);
  }
  if (
    typeof jwk !== 'object' ||
    jwk === null ||
    jwk.kty !== 'OKP' ||
    jwk.crv !== 'Ed25519' ||
    typeof jwk.x !== 'string'
  ) {
    throw new UsageError(
      `--public-key ${file}: signed-note checkpoints need an Ed25519 JWK (kty OKP, crv Ed25519)`,
    );
  }
  const pub = publicJwkOf(jwk);
  return (origin) => noteVerifierKey(origin, pub);
}

function signed(checkpoint: SavedCheckpoint, key: (origin: string) => string): SignedTree {
  let verifierKey: string;
  try {
    verifierKey = key(checkpoint.origin);
  } catch (error) {
    return { ok: false, reason: (error as Error).message, ...pick(checkpoint) };
  }
  const v = verifyCheckpointNote(checkpoint.note, verifierKey);
  if (v.isErr())
    return { ok: false, reason: `checkpoint signature: ${v.error.message}`, ...pick(checkpoint) };
  return { ok: true, origin: v.value.origin, treeSize: v.value.treeSize, rootHash: v.value.rootHash };
}
const pick = (c: SavedCheckpoint) => ({ origin: c.origin, treeSize: c.treeSize, rootHash: c.rootHash });

export default async function auditVerifyProof(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseUsage(parse, args, USAGE);
  const path = positionals[0];
  if (!path || positionals.length > 1) throw new UsageError(USAGE);
  const key = keyFor(values);
  const file = await readProofFile(path);
  const saved = values.checkpoint ? await readCheckpoint(values.checkpoint, '--checkpoint') : undefined;

  const head = signed(file.checkpoint, key);
  const report: {
    ok: boolean;
    checkpoint: SignedTree;
    inclusion?: Check & { entryId: string; seq: number; treeSize: number };
    consistency?: Check & { size1: number; size2: number };
    savedCheckpoint?: SignedTree;
  } = { ok: false, checkpoint: head };

  if (file.inclusion) {
    const i = file.inclusion;
    const base = { entryId: i.entryId, seq: i.seq, treeSize: i.treeSize };
    let reason: string | undefined;
    if (!head.ok) reason = 'the checkpoint is not validly signed';
    else if (i.treeSize !== head.treeSize)
      reason = `the proof is for tree size ${i.treeSize}, the checkpoint signs ${head.treeSize}`;
    else if (i.leafIndex !== i.seq - 1) reason = `leaf index ${i.leafIndex} is not seq ${i.seq} - 1`;
    else if (verifyInclusion(i.leafHash, i.leafIndex, head.treeSize, i.proof, head.rootHash).isErr())
      reason = 'the inclusion proof does not lead to the signed root';
    report.inclusion = { ...base, ok: reason === undefined, ...(reason ? { reason } : {}) };
  }

  const earlier = saved ?? file.previousCheckpoint;
  if (saved) report.savedCheckpoint = signed(saved, key);
  if (file.consistency || (saved && saved.treeSize !== head.treeSize)) {
    const c = file.consistency;
    const from = earlier
      ? saved
        ? (report.savedCheckpoint as SignedTree)
        : signed(earlier, key)
      : undefined;
    let reason: string | undefined;
    if (!c)
      reason = `your checkpoint has tree size ${saved?.treeSize}, the proof is against ${head.treeSize}: prove again with --since`;
    else if (!from) reason = 'no earlier checkpoint to check the consistency proof from (--checkpoint)';
    else if (!from.ok) reason = `earlier checkpoint: ${from.reason}`;
    else if (!head.ok) reason = 'the checkpoint is not validly signed';
    else if (c.size1 !== from.treeSize || c.size2 !== head.treeSize)
      reason = `the proof is ${c.size1} -> ${c.size2}, the signed trees are ${from.treeSize} -> ${head.treeSize}`;
    else if (c.root1 !== from.rootHash || c.root2 !== head.rootHash)
      reason = 'the proof names roots the checkpoints do not sign';
    else if (verifyConsistency(c.size1, c.size2, c.proof, from.rootHash, head.rootHash).isErr())
      reason = 'the consistency proof does not hold: the later tree does not extend the earlier one';
    report.consistency = {
      size1: c?.size1 ?? saved?.treeSize ?? 0,
      size2: c?.size2 ?? head.treeSize,
      ok: reason === undefined,
      ...(reason ? { reason } : {}),
    };
  } else if (saved) {
    const s = report.savedCheckpoint as SignedTree;
    if (s.ok && s.rootHash !== head.rootHash) {
      report.consistency = {
        size1: s.treeSize,
        size2: head.treeSize,
        ok: false,
        reason: 'your checkpoint and the proof sign different roots for the same tree size: the log forked',
      };
    } else if (!s.ok) {
      report.consistency = {
        size1: s.treeSize,
        size2: head.treeSize,
        ok: false,
        reason: `your checkpoint: ${s.reason}`,
      };
    }
  }
  report.ok = head.ok && (report.inclusion?.ok ?? true) && (report.consistency?.ok ?? true);

  if (values.json) {
    io.stdout(`${JSON.stringify(report)}\n`);
  } else {
    const lines = [
      head.ok
        ? `checkpoint: signature valid (${head.origin}, tree size ${head.treeSize}, root ${head.rootHash})`
        : `checkpoint: INVALID — ${head.reason}`,
    ];
    if (report.inclusion) {
      const i = report.inclusion;
      lines.push(
        i.ok
          ? `inclusion: entry ${i.entryId} (seq ${i.seq}) is in the signed tree of size ${i.treeSize}`
          : `inclusion: FAILED for entry ${i.entryId} — ${i.reason}`,
      );
    }
    if (report.consistency) {
      const c = report.consistency;
      lines.push(
        c.ok
          ? `consistency: the tree of size ${c.size1} is a prefix of the tree of size ${c.size2}`
          : `consistency: FAILED — ${c.reason}`,
      );
    }
    lines.push(report.ok ? 'verified' : 'NOT VERIFIED');
    (report.ok ? io.stdout : io.stderr)(`${lines.join('\n')}\n`);
  }
  return report.ok ? EXIT.ok : EXIT.findings;
}

function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      'public-key': { type: 'string' },
      'verifier-key': { type: 'string' },
      checkpoint: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
}
