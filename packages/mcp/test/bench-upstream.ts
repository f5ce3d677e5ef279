/**
 * The bench's realistic upstream: the example's server (`examples/mcp/src/upstream.ts`, whose
 * notes are a two-entry in-memory map) over real note files on disk — `read_file` reads one file,
 * `search_notes` reads every note of the directory and answers the names of those containing the
 * word. Run over stdio as a child by
 * `bench-world.ts`: `node --import tsx bench-upstream.ts <directory>`.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { type NoteStore, notesServer } from '../../../examples/mcp/src/upstream';

/** How many notes the directory holds, and the size of each (bytes of text). */
export const NOTES = 10;
export const NOTE_BYTES = 2048;

/** A fresh directory of `NOTES` notes of `NOTE_BYTES` each; `plan` appears in every fourth. */
export function writeNotes(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentgov-bench-notes-'));
  const filler = 'meeting notes: budget, hiring, roadmap, incidents, retro. ';
  for (let i = 0; i < NOTES; i++) {
    const head = `note ${i}: ${i % 4 === 0 ? 'the Q3 plan' : 'weekly sync'}\n`;
    const body = filler.repeat(Math.ceil(NOTE_BYTES / filler.length));
    writeFileSync(join(dir, `note-${String(i).padStart(2, '0')}.md`), (head + body).slice(0, NOTE_BYTES));
  }
  return dir;
}

/** The notes of `dir` on disk (only plain names inside it; the bench never deletes). */
export function diskNotes(dir: string): NoteStore {
  const inside = (path: string) => /^[\w.-]+$/.test(path) && !path.startsWith('.');
  return {
    read: async (path) =>
      inside(path) ? await readFile(join(dir, path), 'utf8').catch(() => undefined) : undefined,
    async all() {
      const names = (await readdir(dir)).filter((n) => n.endsWith('.md')).sort();
      return Promise.all(
        names.map(async (n): Promise<[string, string]> => [n, await readFile(join(dir, n), 'utf8')]),
      );
    },
    delete: async () => false,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: bench-upstream.ts <notes directory>');
  await notesServer(diskNotes(dir)).connect(new StdioServerTransport());
}
