/**
 * Writing an answer to a Node `ServerResponse`, for the kernel's Node side (`node.ts`):
 * `writeOutcome` writes the pipeline's answer straight to the response (a JSON body in one write
 * with its Content-Length), `sendFetchResponse` writes a Fetch `Response` (streamed with
 * backpressure). When the answer comes before the request body was read (413, 401, 404 …), the
 * connection is closed only after the rest of the body has been read and discarded, within the
 * drain limits, so that the client reads the answer instead of a TCP reset.
 */
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Outcome } from './http';
import { bodyPending, detachBody } from './node-request';

/**
 * How much of a request body left unread by an early answer (413, 401, 404 …) is read and
 * discarded before the connection closes: up to `bytes`, for at most `ms`.
 */
export interface DrainLimits {
  /** Default 64 MiB. */
  bytes?: number;
  /** Default 30 000. */
  ms?: number;
}

const DEFAULT_DRAIN_BYTES = 64 * 1024 * 1024;
const DEFAULT_DRAIN_MS = 30_000;

/**
 * Ends the response once the request body nobody read has arrived and been discarded (up to the
 * drain limits). The answer (sent with `Connection: close`) is on the wire already; ending at once
 * would close the socket while the client still sends, and a socket closed with unread data
 * answers the client with a TCP reset that can discard the answer before the client read it — a
 * 413 that never arrives. Past the limits (or when the client goes away) it ends anyway.
 */
function endAfterDrain(req: IncomingMessage, res: ServerResponse, limits: DrainLimits = {}): void {
  detachBody(req);
  if (req.readableEnded || req.destroyed) {
    res.end();
    return;
  }
  const maxBytes = limits.bytes ?? DEFAULT_DRAIN_BYTES;
  let drained = 0;
  let ended = false;
  const finish = () => {
    if (ended) return;
    ended = true;
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', finish);
    req.off('close', finish);
    req.off('error', finish);
    res.off('close', finish);
    if (!res.writableEnded) res.end();
  };
  const onData = (chunk: Buffer) => {
    drained += chunk.byteLength;
    if (drained > maxBytes) finish();
  };
  const timer = setTimeout(finish, limits.ms ?? DEFAULT_DRAIN_MS);
  timer.unref?.();
  req.on('data', onData);
  req.once('end', finish);
  req.once('close', finish);
  req.once('error', finish);
  res.once('close', finish);
  // Send the head now, also when no body was written (`writeHead` alone does not send it); once
  // sent, this writes nothing.
  res.flushHeaders();
  req.resume();
}

/**
 * Writes a Fetch Response to a Node response, streaming the body with backpressure. A request body
 * left unread (413, or an error before reading) makes the connection unusable: the answer asks to
 * close it, and the rest of the body is read and discarded before it closes (`drain`).
 */
export async function sendFetchResponse(
  res: ServerResponse,
  response: Response,
  drain?: DrainLimits,
): Promise<void> {
  res.statusCode = response.status;
  const pending = bodyPending(res.req);
  if (pending) res.setHeader('connection', 'close');
  const cookies = response.headers.getSetCookie();
  response.headers.forEach((value, key) => {
    if (key !== 'set-cookie') res.setHeader(key, value);
  });
  if (cookies.length > 0) res.setHeader('set-cookie', cookies);
  const end = () => (pending ? endAfterDrain(res.req, res, drain) : res.end());
  if (!response.body) {
    end();
    return;
  }
  await pipeBody(res, response.body, end);
}

/**
 * Streams a body to the Node response with backpressure, then ends it (`end`); a client that goes
 * away cancels the stream, a stream that fails destroys the response.
 */
async function pipeBody(
  res: ServerResponse,
  body: ReadableStream<Uint8Array>,
  end: () => void = () => res.end(),
): Promise<void> {
  const reader = body.getReader();
  const onClose = () => {
    reader.cancel().catch(() => {});
  };
  res.once('close', onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await once(res, 'drain');
    }
    end();
  } catch {
    res.destroy();
  } finally {
    res.off('close', onClose);
  }
}

/**
 * Writes the pipeline's answer to the Node response: status and headers at once, a JSON text or
 * bytes in one write with its Content-Length, a stream (a handler's own Response) with
 * backpressure. A request body left unread (413, or an error before reading) makes the connection
 * unusable: the answer asks to close it, and the rest of the body is read and discarded (up to
 * `drain`) before it closes, so that the client reads the answer. Written at once (no promise)
 * unless the body is a stream.
 */
export function writeOutcome(
  res: ServerResponse,
  outcome: Outcome,
  drain?: DrainLimits,
): Promise<void> | undefined {
  const req = res.req as IncomingMessage | undefined;
  const headers: Record<string, string | string[] | number> = {};
  for (const [key, value] of outcome.headers) headers[key] = value;
  const pending = bodyPending(req);
  if (pending) headers.connection = 'close';
  const { body } = outcome;
  if (body === null || typeof body === 'string' || body instanceof Uint8Array) {
    const length = body === null ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
    // A HEAD answer keeps the GET's Content-Length the pipeline gave it (or none): never 0.
    if (req?.method === 'HEAD') {
      if (body !== null) headers['content-length'] = length;
    } else if (!(outcome.status === 204 || outcome.status === 304) || length > 0)
      headers['content-length'] = length;
    res.writeHead(outcome.status, headers);
    if (!pending) {
      res.end(body ?? undefined);
      return undefined;
    }
    if (body !== null && length > 0) res.write(body);
    endAfterDrain(req, res, drain);
    return undefined;
  }
  res.writeHead(outcome.status, headers);
  return pipeBody(res, body, pending ? () => endAfterDrain(req, res, drain) : undefined);
}
