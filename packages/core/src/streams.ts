/**
 * The bytes of `stream`, read up to `limit`: undefined (and the stream cancelled) as soon as more
 * arrived — whatever a Content-Length said, and for a chunked body as it streams. The one bounded
 * read of a body from elsewhere: a request's (the gateway, the MCP endpoint), an answer's (a
 * connector's pull, a tracker).
 */
export async function readUpTo(
  stream: ReadableStream<Uint8Array> | null | undefined,
  limit: number,
): Promise<Uint8Array | undefined> {
  if (!stream) return new Uint8Array(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
