/**
 * `agentgov audit prove [ID] --server URL [--token T] [--since FILE] [--out FILE]`: fetches the
 * latest signed checkpoint and the RFC 9162 inclusion proof of entry ID in that very tree (so
 * the two always match), and with `--since` the consistency proof from a checkpoint saved
 * earlier to this one; saves them in one proof file for `audit verify-proof`. Nothing is
 * verified here. Exit 0 saved, 2 unusable input or a server error.
 */
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { type CliIo, EXIT, parseUsage, UsageError } from '../io';
import {
  type ConsistencyProofJson,
  type InclusionProofJson,
  PROOF_FORMAT,
  type ProofFile,
  readCheckpoint,
  type SavedCheckpoint,
} from '../proof-file';
import { call, ServerError, serverFrom } from '../server-client';

const USAGE = 'usage: agentgov audit prove [ID] --server URL [--token TOKEN] [--since FILE] [--out FILE]';

export default async function auditProve(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseUsage(parse, args, USAGE);
  const id = positionals[0];
  if (positionals.length > 1 || (!id && !values.since))
    throw new UsageError(`an entry ID or --since FILE is required\n${USAGE}`);
  const server = serverFrom(values, io.env);
  const since = values.since ? await readCheckpoint(values.since, '--since') : undefined;

  try {
    const checkpoint = (await call<SavedCheckpoint>(server, 'GET', '/audit/checkpoint')).body;
    const file: ProofFile = {
      format: PROOF_FORMAT,
      server: server.api,
      fetchedAt: new Date().toISOString(),
      checkpoint,
    };
    if (id) {
      const path = `/audit/${encodeURIComponent(id)}/proof?treeSize=${checkpoint.treeSize}`;
      try {
        file.inclusion = (await call<InclusionProofJson>(server, 'GET', path)).body;
      } catch (error) {
        if (error instanceof ServerError && error.code === 'invalid_type') {
          throw new UsageError(
            `entry ${id} is not in the latest checkpoint (tree size ${checkpoint.treeSize}) yet; retry after the next checkpoint (${error.message})`,
          );
        }
        throw error;
      }
    }
    if (since) {
      if (since.treeSize > checkpoint.treeSize) {
        throw new UsageError(
          `--since checkpoint has tree size ${since.treeSize}, larger than the server's latest ${checkpoint.treeSize}`,
        );
      }
      file.previousCheckpoint = since;
      file.consistency =
        since.treeSize === checkpoint.treeSize
          ? {
              size1: since.treeSize,
              size2: since.treeSize,
              root1: since.rootHash,
              root2: checkpoint.rootHash,
              proof: [],
            }
          : (
              await call<ConsistencyProofJson>(
                server,
                'GET',
                `/audit/consistency?from=${since.treeSize}&to=${checkpoint.treeSize}`,
              )
            ).body;
    }
    const out =
      values.out ??
      (id ? `${id}.proof.json` : `consistency-${since?.treeSize}-${checkpoint.treeSize}.proof.json`);
    try {
      await writeFile(out, `${JSON.stringify(file, null, 2)}\n`);
    } catch (error) {
      throw new UsageError(`cannot write ${out}: ${(error as Error).message}`);
    }
    const what = [
      file.inclusion ? `inclusion proof of entry ${id} (seq ${file.inclusion.seq})` : undefined,
      file.consistency
        ? `consistency proof ${file.consistency.size1} -> ${file.consistency.size2}`
        : undefined,
    ]
      .filter(Boolean)
      .join(' and ');
    io.stdout(
      `saved ${what} against checkpoint ${checkpoint.origin} tree size ${checkpoint.treeSize} to ${out}\n`,
    );
    return EXIT.ok;
  } catch (error) {
    if (error instanceof ServerError) {
      if (error.status === 404 && error.message.startsWith('GET /audit/checkpoint')) {
        throw new UsageError('the server has no signed checkpoint yet');
      }
      throw new UsageError(error.message);
    }
    throw error;
  }
}

function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      server: { type: 'string' },
      token: { type: 'string' },
      since: { type: 'string' },
      out: { type: 'string' },
    },
  });
}
