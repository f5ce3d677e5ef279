// A client in its own process (as a black-box client is): POSTs `count` bodies of `size` bytes,
// one after the other, with `fetch` (undici) or with node:http, and prints what each got as a JSON
// array: `<status> <error code of the body>`, or `error <code>` when no answer arrived.
//   node upload-client.mjs <url> <bearer token> <fetch|node> <count> <size>
import http from 'node:http';

const [url, token, mode, count, size] = process.argv.slice(2);
const bytes = Number(size);
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

const answer = (status, text) => {
  try {
    return `${status} ${JSON.parse(text).error}`;
  } catch {
    return `${status} (not JSON)`;
  }
};

async function viaFetch() {
  try {
    const res = await fetch(url, { method: 'POST', headers, body: new Uint8Array(bytes).fill(0x20) });
    return answer(res.status, await res.text());
  } catch (e) {
    return `error ${e.cause?.code ?? e.message}`;
  }
}

/** A careful client: the body written with backpressure, the answer read whenever it comes. */
function viaNodeHttp() {
  return new Promise((resolve) => {
    let answered = false;
    const req = http.request(url, {
      method: 'POST',
      agent: false,
      headers: { ...headers, 'content-length': String(bytes) },
    });
    req.on('response', (res) => {
      answered = true;
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve(answer(res.statusCode, Buffer.concat(chunks).toString('utf8'))));
      res.on('error', (e) => resolve(`${res.statusCode} body error ${e.code}`));
    });
    req.on('error', (e) => {
      if (!answered) resolve(`error ${e.code ?? e.message}`);
    });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    const pump = () => {
      while (sent < bytes && !req.destroyed) {
        const n = Math.min(chunk.byteLength, bytes - sent);
        sent += n;
        if (!req.write(n === chunk.byteLength ? chunk : chunk.subarray(0, n))) {
          req.once('drain', pump);
          return;
        }
      }
      if (!req.destroyed) req.end();
    };
    pump();
  });
}

const out = [];
for (let i = 0; i < Number(count); i++) out.push(mode === 'fetch' ? await viaFetch() : await viaNodeHttp());
process.stdout.write(JSON.stringify(out));
