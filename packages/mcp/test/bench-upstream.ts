/**
 * The bench's realistic upstream: the example's `read_file` and `search_notes` (same names and
 * input schemas as `examples/mcp/src/upstream.ts`, whose tools read a two-entry in-memory map)
 * over real note files on disk — `read_file` reads one file, `search_notes` reads every note of
 * the directory and answers the names of those containing the word. Run over stdio as a child by
 * `bench-world.ts`: `node --import tsx bench-upstream.ts <directory>`.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

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

export function diskNotesServer(dir: string): McpServer {
  const server = new McpServer({ name: 'notes-on-disk', version: '1.0.0' });
  const inside = (path: string) => /^[\w.-]+$/.test(path) && !path.startsWith('.');
  server.registerTool(
    'read_file',
    {
      description: 'Read one note file',
      inputSchema: { path: z.string() },
      annotations: { readOnlyHint: true },
    },
    async ({ path }) => {
      const text = inside(path) ? await readFile(join(dir, path), 'utf8').catch(() => undefined) : undefined;
      return text === undefined
        ? { content: [{ type: 'text', text: `no such file: ${path}` }], isError: true }
        : { content: [{ type: 'text', text }] };
    },
  );
  server.registerTool(
    'search_notes',
    { description: 'Find the note files containing a word', inputSchema: { query: z.string() } },
    async ({ query }) => {
      const word = query.toLowerCase();
      const names = (await readdir(dir)).filter((n) => n.endsWith('.md')).sort();
      const texts = await Promise.all(names.map((n) => readFile(join(dir, n), 'utf8')));
      const hits = names.filter((_, i) => (texts[i] as string).toLowerCase().includes(word));
      return { content: [{ type: 'text', text: JSON.stringify(hits) }], structuredContent: { hits } };
    },
  );
  return server;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: bench-upstream.ts <notes directory>');
  await diskNotesServer(dir).connect(new StdioServerTransport());
}
