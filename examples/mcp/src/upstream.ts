/**
 * A real MCP server (the SDK's McpServer) with four notes tools: read_file, search_notes,
 * send_message, delete_file. It knows nothing of governance. Run alone over stdio:
 * `pnpm --filter @agentgov/example-mcp upstream` (the proxy spawns it the same way).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

/** Where the notes live: the example keeps two in memory; the bench reads files on disk. */
export interface NoteStore {
  read(path: string): Promise<string | undefined>;
  /** Every note, as [path, text], in path order. */
  all(): Promise<[string, string][]>;
  delete(path: string): Promise<boolean>;
}

/** Two notes in memory. */
function memoryNotes(): NoteStore {
  const files = new Map([
    ['plan.md', 'Q3 plan: ship the governed MCP proxy'],
    ['people.md', 'alice: eng lead; bob: sales'],
  ]);
  return {
    read: async (path) => files.get(path),
    all: async () => [...files],
    delete: async (path) => files.delete(path),
  };
}

export function notesServer(files: NoteStore = memoryNotes()): McpServer {
  const server = new McpServer({ name: 'notes', version: '1.0.0' });
  server.registerTool(
    'read_file',
    {
      description: 'Read one note file',
      inputSchema: { path: z.string() },
      annotations: { readOnlyHint: true },
    },
    async ({ path }) => {
      const text = await files.read(path);
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
      const hits = (await files.all()).filter(([, t]) => t.toLowerCase().includes(word)).map(([p]) => p);
      return { content: [{ type: 'text', text: JSON.stringify(hits) }], structuredContent: { hits } };
    },
  );
  server.registerTool(
    'send_message',
    { description: 'Send a message to a colleague', inputSchema: { to: z.string(), text: z.string() } },
    async ({ to }) => ({ content: [{ type: 'text', text: `message sent to ${to}` }] }),
  );
  server.registerTool(
    'delete_file',
    {
      description: 'Delete a note file',
      inputSchema: { path: z.string() },
      annotations: { destructiveHint: true },
    },
    async ({ path }) => ({
      content: [
        { type: 'text', text: (await files.delete(path)) ? `deleted ${path}` : `no such file: ${path}` },
      ],
    }),
  );
  return server;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await notesServer().connect(new StdioServerTransport());
}
