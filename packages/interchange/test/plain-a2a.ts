/** The bench's baseline: the SDK's DefaultRequestHandler and JSON-RPC transport on node:http, no governance. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentCard, Message } from '@a2a-js/sdk';
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  ServerCallContext,
} from '@a2a-js/sdk/server';
import { newId } from '@agentgov/core';

/** The same SDK handler and JSON-RPC transport on node:http, answering with the same data part, no governance. */
export async function plainA2AServer(answer: unknown) {
  const card = AgentCard.fromJSON({
    name: 'plain',
    description: 'no governance',
    supportedInterfaces: [{ url: 'http://127.0.0.1/', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    version: '1.0.0',
    capabilities: { streaming: false, extensions: [] },
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json'],
    skills: [],
  });
  const executor: AgentExecutor = {
    async execute(rc, bus) {
      bus.publish(
        AgentEvent.message(
          Message.fromJSON({
            messageId: newId(),
            contextId: rc.contextId,
            role: 'ROLE_AGENT',
            parts: [{ data: answer, mediaType: 'application/json' }],
          }),
        ),
      );
      bus.finished();
    },
    async cancelTask() {},
  };
  const transport = new JsonRpcTransportHandler(
    new DefaultRequestHandler(card, new InMemoryTaskStore(), executor),
  );
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const out = await transport.handle(
      Buffer.concat(chunks).toString('utf8'),
      new ServerCallContext({ requestedVersion: '1.0' }),
    );
    const text = JSON.stringify(out);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
