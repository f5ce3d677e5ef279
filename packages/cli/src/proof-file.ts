/**
 * The proof file `audit prove` writes and `audit verify-proof` reads, and the saved checkpoints
 * both accept (`--since`, `--checkpoint`): the server's checkpoint JSON, a proof file (its
 * checkpoint), or the C2SP signed note itself as text.
 */
import { readFile } from 'node:fs/promises';
import { UsageError } from './io';

export const PROOF_FORMAT = 'agentgov-audit-proof/1';

export interface SavedCheckpoint {
  treeSize: number;
  rootHash: string;
  origin: string;
  /** The C2SP tlog-checkpoint signed note: what verification reads. */
  note: string;
  issuedAt?: string;
  jws?: string;
  verifierKey?: string;
  tenantId?: string;
}

export interface InclusionProofJson {
  entryId: string;
  seq: number;
  leafIndex: number;
  leafHash: string;
  treeSize: number;
  rootHash: string;
  proof: string[];
}

export interface ConsistencyProofJson {
  size1: number;
  size2: number;
  root1: string;
  root2: string;
  proof: string[];
}

export interface ProofFile {
  format: typeof PROOF_FORMAT;
  /** The API the proof was fetched from. */
  server: string;
  fetchedAt: string;
  checkpoint: SavedCheckpoint;
  inclusion?: InclusionProofJson;
  /** The earlier checkpoint the consistency proof starts from (`--since`). */
  previousCheckpoint?: SavedCheckpoint;
  consistency?: ConsistencyProofJson;
}

async function readText(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${what} ${path}: ${(error as Error).message}`);
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The note's origin, tree size and root (unverified: `verifyCheckpointNote` checks it). */
function noteBody(note: string): { origin: string; treeSize: number; rootHash: string } | undefined {
  const [origin, size, root] = note.split('\n');
  const rootBytes = Buffer.from(root ?? '', 'base64');
  if (!origin || !/^(0|[1-9][0-9]*)$/.test(size ?? '') || rootBytes.length !== 32) return undefined;
  return { origin, treeSize: Number(size), rootHash: rootBytes.toString('hex') };
}

function checkpointFrom(note: string, extra: Record<string, unknown> = {}): SavedCheckpoint | undefined {
  const body = noteBody(note);
  if (!body) return undefined;
  return { ...extra, ...body, note } as SavedCheckpoint;
}

/** A saved checkpoint: checkpoint JSON, a proof file, or a signed note. */
export async function readCheckpoint(path: string, what: string): Promise<SavedCheckpoint> {
  const text = await readText(path, what);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const candidate = isRecord(value) ? (isRecord(value.checkpoint) ? value.checkpoint : value) : undefined;
  const note = candidate ? candidate.note : text;
  const checkpoint = typeof note === 'string' ? checkpointFrom(note, candidate ?? {}) : undefined;
  if (!checkpoint) {
    throw new UsageError(
      `${what} ${path} is not a checkpoint (checkpoint JSON, a proof file or a signed note)`,
    );
  }
  return checkpoint;
}

const HEX = /^[0-9a-f]{64}$/;
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isProof = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((h) => typeof h === 'string' && HEX.test(h));

/** A proof file written by `audit prove` (shape checked; nothing verified yet). */
export async function readProofFile(path: string): Promise<ProofFile> {
  const text = await readText(path, 'proof file');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`proof file ${path} is not JSON: ${(error as Error).message}`);
  }
  const bad = (why: string) => new UsageError(`proof file ${path}: ${why}`);
  if (!isRecord(value) || value.format !== PROOF_FORMAT) throw bad(`not an ${PROOF_FORMAT} file`);
  const cp =
    isRecord(value.checkpoint) && typeof value.checkpoint.note === 'string'
      ? checkpointFrom(value.checkpoint.note, value.checkpoint)
      : undefined;
  if (!cp) throw bad('no checkpoint note');
  const out: ProofFile = {
    format: PROOF_FORMAT,
    server: String(value.server ?? ''),
    fetchedAt: String(value.fetchedAt ?? ''),
    checkpoint: cp,
  };
  if (value.inclusion !== undefined) {
    const i = value.inclusion;
    if (
      !isRecord(i) ||
      typeof i.entryId !== 'string' ||
      !isInt(i.seq) ||
      !isInt(i.leafIndex) ||
      !isInt(i.treeSize) ||
      typeof i.leafHash !== 'string' ||
      typeof i.rootHash !== 'string' ||
      !isProof(i.proof)
    ) {
      throw bad('malformed inclusion proof');
    }
    out.inclusion = i as unknown as InclusionProofJson;
  }
  if (value.consistency !== undefined) {
    const c = value.consistency;
    if (
      !isRecord(c) ||
      !isInt(c.size1) ||
      !isInt(c.size2) ||
      typeof c.root1 !== 'string' ||
      typeof c.root2 !== 'string' ||
      !isProof(c.proof)
    ) {
      throw bad('malformed consistency proof');
    }
    out.consistency = c as unknown as ConsistencyProofJson;
  }
  if (value.previousCheckpoint !== undefined) {
    const p = value.previousCheckpoint;
    const prev = isRecord(p) && typeof p.note === 'string' ? checkpointFrom(p.note, p) : undefined;
    if (!prev) throw bad('malformed previousCheckpoint');
    out.previousCheckpoint = prev;
  }
  if (!out.inclusion && !out.consistency) throw bad('neither an inclusion nor a consistency proof');
  return out;
}
