/**
 * The A2A binding in a test world: agents served on loopback (each node with an A2ATransport that
 * finds its peers in one URL map, each behind its own governed server), and the hostile peer's
 * tools — raw JSON-RPC, caller tokens, signed SendMessage requests, the SDK's own client. Used by
 * the A2A tests and the bench.
 */

import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import type { AgentIdentityConfig } from '@agentgov/core';
import { newId } from '@agentgov/core';
import {
  type A2AServerOptions,
  A2ATransport,
  callerToken,
  GOVERNANCE_EXTENSION_URI,
  type GovernedA2AServer,
  startA2AServer,
  toWireMessage,
} from '../src/a2a/index';
import { InterchangeNode, type NodeOptions } from '../src/index';
import { type AgentName, audience, nodeBase, type QueryClaims, signQuery, type World } from './harness';

/** The A2A version a governed agent serves (no header means 0.3: refused, -32009). */
export const V1 = { 'a2a-version': '1.0' };
/** Activates the governance extension. */
export const EXT = { 'a2a-extensions': GOVERNANCE_EXTENSION_URI };

/** A served agent's identity: answers queries on its own, makes no commitments, up to confidential. */
export const governedIdentity = (): AgentIdentityConfig => ({
  canReceiveQueries: true,
  canAutoRespond: true,
  canMakeCommitments: false,
  maxClassificationShared: 'confidential',
  supportedExchangeTypes: ['information_query', 'commitment_request', 'meeting_scheduling'],
  maxRoundsAccepted: 3,
});

export interface A2ANodeOptions extends Partial<NodeOptions> {
  /** Where a peer's card is served (its base URL). */
  resolve: (agentId: string) => string | undefined;
  /** The transport's fetch (default: the global one). */
  fetch?: typeof fetch;
}

/** Agent `name`'s node on the A2A channel: governedIdentity, an A2ATransport with its key; `extra` wins. */
export function a2aNode(w: World, name: AgentName, { resolve, fetch, ...extra }: A2ANodeOptions) {
  return new InterchangeNode({
    ...nodeBase(w, name),
    identityConfig: governedIdentity(),
    transport: new A2ATransport({
      signingKey: w.keyPairs[name].signingKey,
      keys: w.keys,
      resolve,
      ...(fetch ? { fetch } : {}),
    }),
    channel: 'a2a',
    ...extra,
  });
}

export interface ServedAgents<N extends AgentName> {
  nodes: Record<N, InterchangeNode>;
  servers: Record<N, GovernedA2AServer>;
  /** agent id → base URL; the nodes resolve their peers here (add to it to re-address). */
  urls: Map<string, string>;
  close(): Promise<void>;
}

/** Each agent of `names` as an a2aNode behind its own governed server on loopback, in order. */
export async function serveAgents<N extends AgentName>(
  w: World,
  names: readonly N[],
  options: {
    node?: Omit<A2ANodeOptions, 'resolve'>;
    server?: Omit<A2AServerOptions, 'node' | 'signingKey' | 'keys'>;
  } = {},
): Promise<ServedAgents<N>> {
  const urls = new Map<string, string>();
  const nodes = {} as Record<N, InterchangeNode>;
  const servers = {} as Record<N, GovernedA2AServer>;
  for (const name of names) {
    nodes[name] = a2aNode(w, name, { resolve: (id) => urls.get(id), ...options.node });
    servers[name] = await startA2AServer({
      node: nodes[name],
      signingKey: w.keyPairs[name].signingKey,
      keys: w.keys,
      ...options.server,
    });
    urls.set(`agent-${name}`, servers[name].url);
  }
  return {
    nodes,
    servers,
    urls,
    close: async () => {
      for (const s of Object.values<GovernedA2AServer>(servers)) await s.close();
    },
  };
}

/** A raw JSON-RPC POST as a hostile client makes it: `headers` as given, a body as given or as JSON. */
export async function postJsonRpc(url: string, body: unknown, headers: Record<string, string>) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type'), text, body: JSON.parse(text) };
}

/** `from`'s caller token for one call of `method` on `to`, issued now. */
const callerTokenFor = (w: World, from: AgentName, to: AgentName, method: string) =>
  callerToken(w.keyPairs[from].signingKey, audience(to), method, Date.now());

/** The headers of a governed call: extension, A2A 1.0 and `from`'s caller token for `method` on `to`. */
export const governedHeaders = async (w: World, from: AgentName, to: AgentName, method: string) => ({
  ...EXT,
  ...V1,
  authorization: `Bearer ${await callerTokenFor(w, from, to, method)}`,
});

/** A wire message as JSON, open to a hostile peer's changes. */
type WireJson = Record<string, unknown> & {
  parts: Record<string, unknown>[];
  metadata: Record<string, unknown>;
};

/** A signed query as a SendMessage (or `method`) request: the envelope, the wire message, the request. */
export async function signedSendMessage(q: QueryClaims & { method?: string }) {
  const { jws, claims } = await signQuery(q);
  const message = toWireMessage({
    messageId: newId(),
    contextId: claims.contextId,
    role: 'ROLE_USER',
    content: q.message,
    metadata: { envelope: jws, kind: 'query' },
  }) as WireJson;
  return {
    jws,
    exchangeId: claims.envelope.exchangeId,
    contextId: claims.contextId,
    message,
    request: { jsonrpc: '2.0', id: 1, method: q.method ?? 'SendMessage', params: { message } },
  };
}

/** The SDK's own A2A client (JSON-RPC over HTTP/SSE) for `from` → `to`: the extension and a caller token per call. */
export function governedSdkClient(w: World, url: string, from: AgentName, to: AgentName) {
  const governedFetch: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('a2a-extensions', GOVERNANCE_EXTENSION_URI);
    if (typeof init?.body === 'string')
      headers.set(
        'authorization',
        `Bearer ${await callerTokenFor(w, from, to, JSON.parse(init.body).method)}`,
      );
    return fetch(input, { ...init, headers });
  };
  return new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl: governedFetch })],
    }),
  ).createFromUrl(url);
}

/** The id of the task `to` (served at `url`) holds for exchange `exchangeId`, as `from` lists it (ListTasks). */
export async function taskOf(
  w: World,
  url: string,
  from: AgentName,
  to: AgentName,
  exchangeId: string,
): Promise<string> {
  const list = await postJsonRpc(
    url,
    { jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} },
    await governedHeaders(w, from, to, 'ListTasks'),
  );
  return list.body.result.tasks.find(
    (t: { metadata?: Record<string, { exchangeId: string }> }) =>
      t.metadata?.[GOVERNANCE_EXTENSION_URI]?.exchangeId === exchangeId,
  )?.id;
}
