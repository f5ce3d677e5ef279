/** Small node:http and JWS helpers of the governed A2A server. */
import type http from 'node:http';

/** Whether the `A2A-Extensions` header (comma-separated URIs) activates `uri` (the header alone: at once). */
export const activates = (header: unknown, uri: string): boolean =>
  header === uri ||
  String(header ?? '')
    .split(',')
    .map((s) => s.trim())
    .includes(uri);

export const isAsyncIterable = (v: unknown): v is AsyncIterable<unknown> =>
  typeof v === 'object' && v !== null && Symbol.asyncIterator in v;

export function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** What a request body turned out to be: its text, too large, or gone (the client went away). */
export type BodyRead =
  | { status: 'ok'; text: string }
  /** `drained`: the whole body was read and discarded, the connection can be kept. */
  | { status: 'too_large'; drained: boolean }
  | { status: 'gone' };

/**
 * Reads a body of at most `limit` bytes. A larger one is read on and discarded up to `drainLimit`
 * bytes, so the 413 can be answered on a connection that stays usable (keep-alive); past
 * `drainLimit` (or when the declared length is already beyond it) it answers at once, still
 * discarding what arrives: the caller answers with `Connection: close` (see `closeAfter`). Never
 * destroys the request: a reset connection loses the 413 and the next request on it.
 */
export function readBody(req: http.IncomingMessage, limit: number, drainLimit: number): Promise<BodyRead> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length'] ?? Number.NaN);
    if (declared > drainLimit) {
      req.resume();
      return resolve({ status: 'too_large', drained: false });
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let over = declared > limit;
    const done = (r: BodyRead) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('aborted', onGone);
      req.off('error', onGone);
      req.off('close', onGone);
      resolve(r);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (!over && size > limit) {
        over = true;
        chunks.length = 0;
      }
      if (!over) chunks.push(chunk);
      else if (size > drainLimit) {
        done({ status: 'too_large', drained: false });
        req.resume(); // flowing, no listener: the rest is discarded
      }
    };
    const onEnd = () =>
      done(
        over
          ? { status: 'too_large', drained: true }
          : // one chunk (the usual body): its text, without Buffer.concat's copy
            {
              status: 'ok',
              text: (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks))?.toString('utf8') ?? '',
            },
      );
    const onGone = () => done({ status: 'gone' });
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('aborted', onGone);
    req.on('error', onGone);
    req.on('close', onGone);
  });
}

/**
 * Answers on a connection that must not be reused (a body too large to drain): `Connection: close`
 * tells the client, and instead of node's close-once-written (which resets a connection whose
 * client is still sending, so the answer may never be read) the server half-closes after the
 * answer and keeps discarding what arrives until the client closes, at most `lingerMs`.
 */
export function closeAfter(req: http.IncomingMessage, res: http.ServerResponse, lingerMs: number): void {
  const socket = req.socket as http.IncomingMessage['socket'] & { destroySoon?: () => void };
  res.setHeader('connection', 'close');
  // node calls destroySoon once the response is written (Connection: close)
  socket.destroySoon = () => {
    socket.end();
    req.resume();
    socket.resume();
    const timer = setTimeout(() => socket.destroy(), lingerMs);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
    // the client has sent everything and closed its side: nothing unread is left, close now
    if (socket.readableEnded) socket.destroy();
    else socket.once('end', () => socket.destroy());
  };
}
