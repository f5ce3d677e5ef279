/**
 * Test world: tenant `acme` (alice and bob in org eng, admin erin the enterprise_admin, olga the
 * org_admin of eng, sam in org sales), an actions policy written through PolicyService and the
 * built-in decision engine; a real SDK upstream server (McpServer) with notes tools, linked to
 * the proxy in memory, and a real SDK Client in front of the proxy.
 */
import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type AuditSink,
  type DecisionEngine,
  InMemoryAuditSink,
  InMemoryOrgDirectory,
  InMemoryPolicyStore,
  ManualClock,
  type RateLimiter,
  type ToolApproval,
  type ToolApprovalDecision,
} from '@agentgov/core';
import { BuiltinDecisionEngine, EffectivePolicyResolver, PolicyService } from '@agentgov/policy';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  ElicitRequestSchema,
  type ElicitResult,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { z } from 'zod';
import {
  createMcpProxy,
  type GovernorWarning,
  InMemoryToolCallInbox,
  type McpConfigInput,
  type McpProxy,
  refusalOf,
  type SessionIdentity,
} from '../src/index';

const ACTIONS_POLICY = `default_autonomy: autonomous
actions:
  notes__send_message: notify
  notes__delete_file: approve
blocked: [notes__wipe_all]
`;

/** Team/user tightening: bob's send_message needs approval. */
const BOB_POLICY = `actions:
  notes__send_message: approve
`;

export const USERS = {
  alice: { tenantId: 'acme', userId: 'alice', orgUnit: 'eng' },
  bob: { tenantId: 'acme', userId: 'bob', orgUnit: 'eng' },
  sam: { tenantId: 'acme', userId: 'sam', orgUnit: 'sales' },
  olga: { tenantId: 'acme', userId: 'olga', orgUnit: 'eng' },
  erin: { tenantId: 'acme', userId: 'erin', orgUnit: 'eng' },
} as const;

interface PolicyWorld {
  clock: ManualClock;
  engine: DecisionEngine;
  directory: InMemoryOrgDirectory;
  service: PolicyService;
}

async function makePolicyWorld(
  options: { actions?: string; models?: string; clock?: ManualClock } = {},
): Promise<PolicyWorld> {
  const clock = options.clock ?? new ManualClock('2026-03-02T09:00:00.000Z');
  const store = new InMemoryPolicyStore();
  const directory = new InMemoryOrgDirectory();
  for (const u of Object.values(USERS)) await directory.place(u.tenantId, u.userId, { orgUnit: u.orgUnit });
  const resolver = new EffectivePolicyResolver({ store, directory });
  const service = new PolicyService({
    store,
    directory,
    audit: new InMemoryAuditSink(),
    onChange: (t) => resolver.invalidate(t),
  });
  const create = async (
    scope: 'enterprise' | 'user',
    scopeId: string,
    domain: 'actions' | 'models',
    content: string,
  ) => {
    const r = await service.create(
      { userId: 'root', tenantId: 'acme', roles: ['enterprise_admin'] },
      {
        scope,
        scopeId,
        domain,
        name: `${domain}-${scopeId}`,
        version: '1.0.0',
        content,
        changeReason: 'test',
      },
    );
    if (r.isErr()) throw r.error;
  };
  await create('enterprise', 'acme', 'actions', options.actions ?? ACTIONS_POLICY);
  await create('user', 'bob', 'actions', BOB_POLICY);
  if (options.models) await create('enterprise', 'acme', 'models', options.models);
  return { clock, engine: new BuiltinDecisionEngine(resolver), directory, service };
}

/** Files and notes the upstream holds. */
interface NotesState {
  files: Map<string, string>;
  sent: { to: string; text: string }[];
  deleted: string[];
  calls: string[];
}

/** The notes upstream: a real SDK McpServer. `extra` registers more tools. */
export function notesServer(state: NotesState, extra?: (server: McpServer) => void): McpServer {
  const server = new McpServer({ name: 'notes', version: '1.0.0' });
  server.registerTool(
    'read_file',
    { description: 'Read a file', inputSchema: { path: z.string() }, annotations: { readOnlyHint: true } },
    async ({ path }) => {
      state.calls.push(`read_file ${path}`);
      const text = state.files.get(path);
      if (text === undefined)
        return { content: [{ type: 'text', text: `no such file: ${path}` }], isError: true };
      return { content: [{ type: 'text', text }] };
    },
  );
  server.registerTool(
    'search_notes',
    { description: 'Search notes', inputSchema: { query: z.string(), limit: z.number().int().optional() } },
    async ({ query }) => {
      state.calls.push(`search_notes ${query}`);
      const hits = [...state.files.keys()].filter((k) => (state.files.get(k) ?? '').includes(query));
      return { content: [{ type: 'text', text: JSON.stringify(hits) }], structuredContent: { hits } };
    },
  );
  server.registerTool(
    'send_message',
    { description: 'Send a message', inputSchema: { to: z.string(), text: z.string() } },
    async ({ to, text }) => {
      state.calls.push(`send_message ${to}`);
      state.sent.push({ to, text });
      return { content: [{ type: 'text', text: `sent to ${to}` }] };
    },
  );
  server.registerTool(
    'delete_file',
    {
      description: 'Delete a file',
      inputSchema: { path: z.string() },
      annotations: { destructiveHint: true },
    },
    async ({ path }) => {
      state.calls.push(`delete_file ${path}`);
      state.deleted.push(path);
      state.files.delete(path);
      return { content: [{ type: 'text', text: `deleted ${path}` }] };
    },
  );
  server.registerTool('wipe_all', { description: 'Delete everything' }, async () => {
    state.calls.push('wipe_all');
    state.files.clear();
    return { content: [{ type: 'text', text: 'wiped' }] };
  });
  extra?.(server);
  return server;
}

/** A fresh upstream state holding `files` (by default the two notes of the world's upstream). */
export function newNotesState(
  files: Record<string, string> = { '/notes/a.md': 'alpha plan', '/notes/b.md': 'beta plan' },
): NotesState {
  return { files: new Map(Object.entries(files)), sent: [], deleted: [], calls: [] };
}

/**
 * A real node:http server (port 0, loopback) serving `notesServer(state)` over stateless
 * Streamable HTTP (a server and transport per request) at `url`. `before` sees each request
 * first and answers it itself when it returns true.
 */
export async function startHttpNotes(
  state: NotesState,
  before?: (req: IncomingMessage, res: ServerResponse) => boolean,
): Promise<{ http: HttpServer; url: string }> {
  const http = createServer(async (req, res) => {
    if (before?.(req, res)) return;
    const server = notesServer(state);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return { http, url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp` };
}

/** A real SDK client connected in memory to `proxy` as `identity`. */
export async function connectClient(
  proxy: McpProxy,
  identity: { tenantId: string; userId: string },
): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await proxy.connect(serverSide, identity);
  const client = new Client({ name: 'a', version: '1' });
  await client.connect(clientSide);
  return client;
}

/** The McpError `p` rejects with (the test fails when it resolves or rejects otherwise), and its refusal. */
export async function refusal(p: Promise<unknown>) {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  return { error: error as McpError, refusal: refusalOf(error) };
}

/** A transport factory linking a new proxy-side client transport to `make()`'s server each time. */
export function linked(make: () => McpServer | Server): () => InMemoryTransport {
  return () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const s = make();
    void s.connect(serverSide);
    return clientSide;
  };
}

/** `call` is refused with `code`, and `world`'s last audit entry records the call as an error with it. */
export async function refusedAndAudited(world: ProxyWorld, call: Promise<unknown>, code: string) {
  expect((await refusal(call)).refusal?.refusal).toBe(code);
  expect(world.audit.entries.at(-1)).toMatchObject({ outcome: 'error', actionDetail: { error: code } });
}

export interface ProxyWorld extends PolicyWorld {
  state: NotesState;
  audit: InMemoryAuditSink;
  inbox: InMemoryToolCallInbox;
  proxy: McpProxy;
  warnings: GovernorWarning[];
  /** A real SDK client connected to the proxy as `identity` (elicitation answered by `elicit` when given). */
  client(
    identity?: SessionIdentity,
    options?: { elicit?: (message: string) => ElicitResult },
  ): Promise<Client>;
  /** A human's decision on approval `id` of tenant `acme`, as of the world's clock (the inbox's answer). */
  decide(id: string | undefined, decision: ToolApprovalDecision): Promise<ToolApproval | undefined>;
  close(): Promise<void>;
}

export async function makeProxyWorld(
  options: {
    actions?: string;
    models?: string;
    config?: Partial<McpConfigInput>;
    extraTools?: (server: McpServer) => void;
    upstreams?: Record<string, () => Transport>;
    engine?: (e: DecisionEngine) => DecisionEngine;
    /** The proxy's audit sink instead of `audit` (e.g. a hash-chained log; `audit` then stays empty). */
    sink?: AuditSink;
    rateLimiter?: RateLimiter;
  } = {},
): Promise<ProxyWorld> {
  const world = await makePolicyWorld(options);
  const state = newNotesState();
  const audit = new InMemoryAuditSink(world.clock);
  const inbox = new InMemoryToolCallInbox();
  const warnings: GovernorWarning[] = [];
  const engine = options.engine ? options.engine(world.engine) : world.engine;
  const proxy = createMcpProxy(
    {
      upstreams: [{ namespace: 'notes', transport: 'stdio', command: 'unused', classification: 'internal' }],
      ...options.config,
    },
    {
      engine,
      audit: options.sink ?? audit,
      inbox,
      ...(options.rateLimiter ? { rateLimiter: options.rateLimiter } : {}),
      clock: world.clock,
      onWarning: (w) => warnings.push(w),
      connect: { notes: linked(() => notesServer(state, options.extraTools)), ...options.upstreams },
    },
  );
  const clients: Client[] = [];
  return {
    ...world,
    engine,
    state,
    audit,
    inbox,
    proxy,
    warnings,
    async client(identity = USERS.alice, opts = {}) {
      const client = new Client(
        { name: 'test-assistant', version: '1.0.0' },
        { capabilities: opts.elicit ? { elicitation: { form: {} } } : {} },
      );
      if (opts.elicit) {
        const answer = opts.elicit;
        client.setRequestHandler(ElicitRequestSchema, async (req) => answer(req.params.message));
      }
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await proxy.connect(serverSide, { tenantId: identity.tenantId, userId: identity.userId });
      await client.connect(clientSide);
      clients.push(client);
      return client;
    },
    decide: (id, decision) => inbox.decide('acme', id as string, decision, world.clock.now()),
    async close() {
      await Promise.all(clients.map((c) => c.close()));
      await proxy.close();
    },
  };
}

/**
 * A low-level upstream whose `fail` tool answers with the JSON-RPC error its arguments name, exactly
 * (`wire: true`: message, code and data as given; else an SDK McpError thrown, as SDK servers do).
 */
export function failingServer(): Server {
  const s = new Server({ name: 'failing', version: '1.0.0' }, { capabilities: { tools: {} } });
  s.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [{ name: 'fail', inputSchema: { type: 'object' } }],
  }));
  s.setRequestHandler(CallToolRequestSchema, async (req) => {
    const a = req.params.arguments as { code: number; message: string; data?: unknown; wire?: boolean };
    if (a.wire) throw Object.assign(new Error(a.message), { code: a.code, data: a.data });
    throw new McpError(a.code, a.message, a.data);
  });
  return s;
}

/** What a client sees of a failed call: the error's class, message, code and data. */
export async function failure(p: Promise<unknown>) {
  const e = await p.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(e).toBeInstanceOf(McpError);
  const { name, message, code, data } = e as McpError;
  return { name, message, code, data };
}

export const FAILURES = [
  { code: -32001, message: 'ev2 is busy', wire: true },
  { code: -32001, message: 'ev2 is busy', data: { retryAfter: 5 } },
  { code: -32000, message: 'server error', wire: true },
  { code: -32099, message: 'upstream says no', data: { why: ['x'] }, wire: true },
  { code: -32099, message: 'upstream says no' },
  { code: -32602, message: 'bad path', data: { path: '/x' } },
  { code: -32603, message: 'it broke', wire: true },
];
