/**
 * JSON-RPC's answer to a line it cannot take, over stdio. The SDK's `StdioServerTransport` reports
 * a line that is no JSON, or no JSON-RPC message, to `onerror` and drops it; the client that sent
 * it then waits for an answer that never comes. JSON-RPC 2.0 answers such a request with an error
 * whose `id` is null (the request's id could not be read): −32700 "Parse error" for invalid JSON,
 * −32600 "Invalid Request" for JSON that is not a JSON-RPC message — what the SDK's Streamable
 * HTTP transport answers too.
 */
import type { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The error the transport reports for one unreadable line, or undefined for any other error. */
function lineError(error: Error): { code: number; message: string } | undefined {
  if (error instanceof SyntaxError) return { code: -32700, message: 'Parse error: the line is not JSON' };
  // The SDK parses each line with its JSON-RPC message schema (zod): a ZodError.
  if (error.name === 'ZodError')
    return { code: -32600, message: 'Invalid Request: the line is not a JSON-RPC 2.0 message' };
  return undefined;
}

/**
 * Answers each line of `transport` that is no JSON-RPC message with JSON-RPC's error (call after
 * the server connected it: the server's own `onerror` still hears of it).
 */
export function answerMalformedLines(transport: StdioServerTransport): void {
  const reported = transport.onerror;
  transport.onerror = (error) => {
    reported?.(error);
    const answer = lineError(error);
    if (!answer) return;
    // The SDK's message type has no null id; JSON-RPC's error for an unreadable request does.
    const message = { jsonrpc: '2.0', id: null, error: answer } as unknown as JSONRPCMessage;
    transport.send(message).catch(() => {});
  };
}
