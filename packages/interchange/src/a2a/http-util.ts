/** Small node:http and JWS helpers of the governed A2A server. */
import type http from 'node:http';

export function decodeClaims(jws: string): { exchangeId: string; round: number } | undefined {
  try {
    const p = JSON.parse(Buffer.from(jws.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
      envelope?: { exchangeId?: string; currentRound?: number };
    };
    return p.envelope?.exchangeId
      ? { exchangeId: p.envelope.exchangeId, round: p.envelope.currentRound ?? 0 }
      : undefined;
  } catch {
    return undefined;
  }
}

export const isAsyncIterable = (v: unknown): v is AsyncIterable<unknown> =>
  typeof v === 'object' && v !== null && Symbol.asyncIterator in v;

export function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export async function readBody(req: http.IncomingMessage, limit: number): Promise<string | undefined> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > limit) {
    req.resume();
    return undefined;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      req.resume();
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
