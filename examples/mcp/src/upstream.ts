/**
 * A real MCP server (the SDK's McpServer) with four notes tools: read_file, search_notes,
 * send_message, delete_file. It knows nothing of governance. Run alone over stdio:
 * `pnpm --filter @agentgov/example-mcp upstream` (the proxy spawns it the same way).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

export function notesServer(): McpServer {
  const files = new Map([
    ['plan.md', 'Q3 plan: ship the governed MCP proxy'],
    ['people.md', 'alice: eng lead; bob: sales'],
  ]);
  const server = new McpServer({ name: 'notes', version: '1.0.0' });
  server.registerTool(
    'read_file',
    {
      description: 'Read one note file',
      inputSchema: { path: z.string() },
      annotations: { readOnlyHint: true },
    },
    async ({ path }) => {
      const text = files.get(path);
      return text === undefined
        ? { content: [{ type: 'text', text: `no such file: ${path}` }], isError: true }
        : { content: [{ type: 'text', text }] };
    },
  );
  server.registerTool(
    'search_notes',
    { description: 'Find the note files containing a word', inputSchema: { query: z.string() } },
    async ({ query }) => {
      const hits = [...files]
        .filter(([, t]) => t.toLowerCase().includes(query.toLowerCase()))
        .map(([p]) => p);
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
      content: [{ type: 'text', text: files.delete(path) ? `deleted ${path}` : `no such file: ${path}` }],
    }),
  );
  return server;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await notesServer().connect(new StdioServerTransport());
}
