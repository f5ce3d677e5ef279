/**
 * A governed A2A server on `@a2a-js/sdk`: the SDK's DefaultRequestHandler and JSON-RPC transport
 * handler behind a gate that runs first, on node:http. The gate, in order: body size (a JSON-RPC
 * error, never an HTML 413), JSON-RPC shape, the governance extension activated (`A2A-Extensions`),
 * the caller — from its signed caller token, or on SendMessage from the signed envelope (never
 * from `params.tenant`) — metadata and envelope size, envelope signer = caller, the caller
 * token's nonce; only then the interchange node, which verifies the envelope (audience, context,
 * round, content digest, expiry, jti) and re-enforces every rule. Refusals never reach the SDK: no
 * task is created for them. Read methods (GetTask, ListTasks, SubscribeToTask, CancelTask) are
 * answered only for the caller's own tasks (SubscribeToTask streams the task and its exchange's
 * progress, see ./subscribe); CancelTask also ends the exchange the task waits on
 * (`denied`, cancelled by the caller) before the SDK marks the task canceled.
 *
 * The gate is one pipeline whose order is the security property, kept in one function so it reads
 * top to bottom; what it reads of a SendMessage before verifying anything is in ./send-message,
 * what it hands to the node once the gate passed (and the message the SDK gets) in ./deliver.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentCard, formatSSEEvent } from '@a2a-js/sdk';
import {
  DefaultRequestHandler,
  JsonRpcTransportHandler,
  ServerCallContext,
  validateVersion,
} from '@a2a-js/sdk/server';
import { silentLogger, systemClock } from '@agentgov/core';
import { MAX_DEPTH, nestedDeeperThan } from '../json-depth';
import { InMemoryReplayGuard, keyId } from '../keys';
import type { InterchangeNode } from '../node';
import { type Caller, CallerUser, type VerifiedCaller, verifyCallerToken } from './caller';
import { buildGovernedCard } from './card';
import { routeSdkConsole } from './console';
import { deliverSendMessage } from './deliver';
import { type GovernedOutcome, governedExecutor, type TaskBinding } from './executor';
import { activates, closeAfter, isAsyncIterable, readBody, send } from './http-util';
import { immediateAnswer } from './immediate';
import { checkSendMessage, envelopeMissing, readSendMessage, type SendMessageView } from './send-message';
import type { A2AServerOptions } from './server-options';
import { subscribeToTask } from './subscribe';
import { checkTaskRead } from './task-read';
import { RetainingTaskStore } from './task-store';
import { unverifiedGuard } from './unverified-limit';

export type { A2AServerOptions } from './server-options';

import {
  GOVERNANCE_ERRORS as E,
  GOVERNANCE_EXTENSION_URI,
  type JsonRpcError,
  rpcError,
  type WireMessage,
} from './wire';

export interface GovernedA2AServer {
  url: string;
  card: AgentCard;
  close(): Promise<void>;
}

const METHODS = new Set([
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
]);

/** The only A2A protocol version served (a request without `A2A-Version` asks for 0.3). */
const A2A_VERSION = '1.0';

export async function startA2AServer(options: A2AServerOptions): Promise<GovernedA2AServer> {
  const { node, keys } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const replay = options.replay ?? new InMemoryReplayGuard();
  const bodyLimit = options.limits?.bodyBytes ?? 64 * 1024;
  const metadataLimit = options.limits?.metadataBytes ?? 20 * 1024;
  const drainLimit = Math.max(bodyLimit, options.limits?.drainBytes ?? 8 * 1024 * 1024);
  const lingerMs = options.limits?.lingerMs ?? 5_000;
  const me = { tenantId: node.tenantId, agentId: node.agentId };
  // Keyed by the request's own call context (one per HTTP request), never by anything the caller
  // chose: two requests with the same messageId can never take each other's outcome.
  const outcomes = new WeakMap<ServerCallContext, GovernedOutcome>();
  const tasks = new Map<string, TaskBinding>();
  const unroute = routeSdkConsole(logger);
  const guard = unverifiedGuard({
    perMinute: options.limits?.unverifiedPerMinute,
    rateLimiter: options.rateLimiter,
    logger,
  });
  let closing = false;

  const executor = governedExecutor({ outcomes, tasks, clock });

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      logger.error('a2a request failed', { error: (error as Error).message });
      if (!res.headersSent)
        send(res, 500, { jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Internal error' } });
      else res.end();
    });
  });
  server.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';
  const url = options.publicUrl ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}/`;
  const cardOf = async (peer: Awaited<ReturnType<InterchangeNode['peerInfo']>>) =>
    buildGovernedCard({
      peer,
      url,
      signingKey: options.signingKey,
      ...(options.name ? { name: options.name } : {}),
      ...(options.description ? { description: options.description } : {}),
    });
  let card = await cardOf(await node.peerInfo());
  const store = new RetainingTaskStore({
    clock,
    ...options.tasks,
    // What the gate keeps beside a task (its owner, exchange and round) goes with it.
    onEvict: (taskId) => tasks.delete(taskId),
  });
  const handler = new DefaultRequestHandler(card, store, executor);
  const transport = new JsonRpcTransportHandler(handler);

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    // The JSON-RPC endpoint's own path needs no URL parser (the same pathname either way).
    const path = req.url === '/' ? '/' : new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method === 'GET' && path === '/.well-known/agent-card.json') {
      // The card follows the node's current identity (policy changes), re-signed when it changes.
      const peer = await node.peerInfo();
      const published = card.capabilities?.extensions.find((e) => e.uri === GOVERNANCE_EXTENSION_URI)?.params;
      if (JSON.stringify({ protocolVersion: '1.0', ...peer }) !== JSON.stringify(published)) {
        card = await cardOf(peer);
      }
      return send(res, 200, AgentCard.toJSON(card));
    }
    if (req.method !== 'POST' || path !== '/')
      return send(res, 404, { error: 'NOT_FOUND', message: 'Not found' });
    const read = await readBody(req, bodyLimit, drainLimit);
    const fail = (status: number, id: unknown, error: JsonRpcError | { code: number; message: string }) =>
      send(res, status, { jsonrpc: '2.0', id: id ?? null, error });
    if (read.status === 'gone') return;
    if (read.status === 'too_large') {
      // Drained: the connection stays usable. Not drained: answered now, then closed cleanly.
      if (!read.drained) closeAfter(req, res, lingerMs);
      return fail(
        413,
        null,
        rpcError(E.tooLarge, 'Request body too large', 'body_too_large', { limit: bodyLimit }),
      );
    }
    let body: { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: Record<string, unknown> };
    try {
      body = JSON.parse(read.text);
    } catch {
      return fail(200, null, { code: -32700, message: 'Parse error' });
    }
    if (
      typeof body !== 'object' ||
      body === null ||
      body.jsonrpc !== '2.0' ||
      typeof body.method !== 'string' ||
      // JSON-RPC 2.0: an id is a string, a number or null (an object or array id is no request)
      (body.id !== undefined &&
        body.id !== null &&
        typeof body.id !== 'string' &&
        typeof body.id !== 'number')
    ) {
      return fail(200, null, { code: -32600, message: 'Invalid Request' });
    }
    // Nothing a governed agent reads nests that deep; deeper, a JSON.stringify further on would
    // overflow the stack (a 500 with the engine's words in it).
    if (nestedDeeperThan(body, MAX_DEPTH))
      return fail(200, null, {
        code: -32600,
        message: `Invalid Request: nested deeper than ${MAX_DEPTH} levels`,
      });
    const id = body.id ?? null;
    const method = body.method;
    // SendStreamingMessage is SendMessage answered as an SSE stream: governed the same way.
    const sending = method === 'SendMessage' || method === 'SendStreamingMessage';
    // 1. the governance extension is required
    if (!activates(req.headers['a2a-extensions'], GOVERNANCE_EXTENSION_URI)) {
      return fail(
        200,
        id,
        rpcError(
          E.extensionRequired,
          'The governance extension is required: activate it with the A2A-Extensions header',
          'extension_not_activated',
        ),
      );
    }
    // 2. the protocol version: only 1.0 is served; no header means 0.3 (A2A spec) → -32009
    const requestedVersion = String(req.headers['a2a-version'] ?? '').trim() || '0.3';
    try {
      validateVersion(requestedVersion, card, 'JSONRPC');
    } catch (error) {
      // the SDK's VersionNotSupportedError: -32009, as its own JSON-RPC handler answers it
      return fail(200, id, JsonRpcTransportHandler.mapToJSONRPCError(error));
    }
    // 3. the caller: from its signed caller token or, on SendMessage without one, from the signed
    // envelope (which the node verifies next: signer = claimed sender, audience, expiry, jti).
    // Never from params.tenant or anything else the request says about itself.
    const auth = String(req.headers.authorization ?? '');
    const bearer = auth.startsWith('Bearer ') ? auth.slice(7) : undefined;
    let caller: Caller;
    let sendView: SendMessageView | undefined;
    try {
      if (!METHODS.has(method)) {
        return fail(
          200,
          id,
          // JSON-RPC's "Method not found" (the reason says why: an A2A method this agent does not offer, or none).
          rpcError(-32601, `Method ${method} is not offered by a governed agent`, 'method_not_supported'),
        );
      }
      const params = body.params ?? {};
      if (typeof params !== 'object') return fail(200, id, { code: -32602, message: 'Invalid params' });
      let token: VerifiedCaller | undefined;
      // What the checks below need of a SendMessage, read once (nothing here is trusted yet).
      sendView = sending ? readSendMessage(params, metadataLimit) : undefined;
      if (bearer !== undefined || !sendView) {
        const verified = await verifyCallerToken(bearer, keys, {
          audience: me,
          method,
          nowMs: clock.now().getTime(),
        });
        if (verified.isErr()) {
          const { message, reason } = verified.error;
          return fail(200, id, rpcError(E.callerUnauthenticated, message, reason));
        }
        token = verified.value;
        caller = token.caller;
      } else {
        const signer = sendView.signer;
        if (sendView.problem) return fail(sendView.problem.status, id, sendView.problem.error);
        if (!signer) return fail(200, id, envelopeMissing());
        caller = signer;
      }
      if (params.tenant !== undefined && params.tenant !== '' && params.tenant !== caller.tenantId) {
        return fail(
          200,
          id,
          rpcError(E.refused, 'params.tenant is not the caller’s tenant', 'tenant_mismatch'),
        );
      }
      if (sendView) {
        const early = checkSendMessage(sendView, caller);
        if (early) return fail(early.status, id, early.error);
      }
      // 4. only a request that passed the checks above uses a nonce
      if (token && !(await replay.consume(`caller:${token.jti}`, token.expMs, clock.now().getTime()))) {
        return fail(
          200,
          id,
          rpcError(
            E.callerUnauthenticated,
            'Caller authentication failed: token already used',
            'caller_token_replayed',
          ),
        );
      }
    } catch (error) {
      // The verifiers answer a Result; what throws here is a port (keys, replay guard) that
      // failed: logged, and answered without its words (no internals to the caller).
      logger.warn('a2a caller check failed', { error: (error as Error).message, method });
      return fail(
        200,
        id,
        rpcError(
          E.callerUnauthenticated,
          'Caller authentication failed: the caller could not be checked',
          'caller_invalid',
        ),
      );
    }
    const owner = keyId(caller.tenantId, caller.agentId);
    let params: Record<string, unknown>;
    let outcome: Parameters<typeof outcomes.set>[1] | undefined;
    if (sendView) {
      const wire = sendView.wire as WireMessage;
      const rawConfiguration = body.params?.configuration;
      const delivered = await deliverSendMessage({
        node,
        tasks,
        wire,
        owner,
        rawConfiguration,
        recordUnverified: guard(req.socket.remoteAddress ?? 'unknown'),
      });
      if (delivered.status === 'refused') return fail(200, id, delivered.error);
      // Answered at once: the SDK's answer, without the SDK (./immediate; anything else goes on).
      const direct = immediateAnswer({
        method,
        id: body.id,
        rawConfiguration,
        wire,
        outcome: delivered.outcome,
      });
      if (direct) return send(res, 200, direct);
      params = delivered.params;
      outcome = delivered.outcome;
    } else {
      params = { ...(body.params ?? {}) };
      delete params.tenant;
    }
    // What goes on to the SDK's handler (a round answered at once never gets here).
    const context = new ServerCallContext({
      user: new CallerUser(caller),
      tenant: caller.tenantId,
      requestedVersion: A2A_VERSION,
      requestedExtensions: [GOVERNANCE_EXTENSION_URI],
    });
    context.addActivatedExtension(GOVERNANCE_EXTENSION_URI);
    if (outcome) outcomes.set(context, outcome);
    else if (method !== 'ListTasks') {
      const refused = await checkTaskRead({ node, tasks, method, params, owner, caller });
      if (refused) return fail(200, id, refused);
    }
    if (method === 'SubscribeToTask') {
      const taskId = params.id as string; // checked above
      return subscribeToTask({
        res,
        rpcId: id,
        taskId,
        binding: tasks.get(taskId) as TaskBinding,
        readTask: async () =>
          (await transport.handle(
            { jsonrpc: '2.0', id, method: 'GetTask', params: { id: taskId } },
            context,
          )) as never,
        readExchange: (exchangeId) => node.exchange(exchangeId),
        clock,
        pollMs: options.subscription?.pollMs ?? 250,
        maxMs: options.subscription?.maxMs ?? 600_000,
        closing: () => closing,
      });
    }
    try {
      const out = await transport.handle({ ...body, params }, context);
      if (!isAsyncIterable(out)) return send(res, 200, out);
      // A stream runs the executor while it is read: the outcome stays until the stream ends.
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      for await (const event of out) res.write(formatSSEEvent(event));
      res.end();
    } finally {
      // The executor takes its outcome; one the SDK never handed over must not stay behind.
      outcomes.delete(context);
    }
  }

  return {
    url,
    get card() {
      return card;
    },
    close: async () => {
      closing = true;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      unroute();
    },
  };
}
