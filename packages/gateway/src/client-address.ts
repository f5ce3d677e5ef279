/**
 * The client address behind reverse proxies, for the per-address limits (`/status`,
 * `auth_failures`, `auth_login`) and `ctx.remoteAddress`. Off by default: the peer's address is
 * the client's. With `trustProxy`, the forwarded chain is walked from the peer back towards the
 * client and stops at the first hop that is not trusted — with `proxy-addr`, the package and the
 * trust syntax of Express's `trust proxy` setting:
 * - `true`: every hop (only when nothing but the proxy can reach the server);
 * - a number `n`: the `n` nearest hops (`1`: the one proxy in front);
 * - addresses and CIDR ranges, as a list or one comma-separated string, with the names
 *   `loopback`, `linklocal`, `uniquelocal`: `'loopback, 10.0.0.0/8'`;
 * - a function `(address, hop) => boolean`.
 * The chain comes from `X-Forwarded-For` (default) or, with `forwardedHeader: 'forwarded'`, from
 * the `for=` parameters of RFC 7239 `Forwarded` — one of the two, the one the proxies set: a
 * header the proxies do not manage is the client's to invent.
 */
import proxyAddr from 'proxy-addr';

/** Which hops to trust (Express's `trust proxy` syntax); `false` or absent: none. */
export type TrustProxy =
  | boolean
  | number
  | string
  | readonly string[]
  | ((address: string, hop: number) => boolean);

/** The header a trusted proxy appends the client address to. */
export type ForwardedHeader = 'x-forwarded-for' | 'forwarded';

/** The client address of a request from its peer address and its headers. */
export type ClientAddress = (
  peer: string | undefined,
  header: (name: string) => string | null,
) => string | undefined;

const peerOnly: ClientAddress = (peer) => peer;

/** Compiles the trust setting once, at start-up (as Express's `compileTrust`). */
function compileTrust(trust: TrustProxy): ((address: string, hop: number) => boolean) | undefined {
  if (typeof trust === 'function') return trust;
  if (trust === true) return () => true;
  if (trust === false) return undefined;
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  const list = typeof trust === 'string' ? trust.split(',').map((s) => s.trim()) : [...trust];
  const entries = list.filter((s) => s !== '');
  // proxy-addr throws on an address or range it cannot read: a configuration error at start-up.
  return entries.length === 0 ? undefined : proxyAddr.compile(entries);
}

/** Reads an RFC 8941-style quoted string's content, or the token as it is. */
function unquote(value: string): string {
  const v = value.trim();
  return v.length >= 2 && v.startsWith('"') && v.endsWith('"') ? v.slice(1, -1).replace(/\\(.)/g, '$1') : v;
}

/** A `for=` node (RFC 7239 section 6) as an address: brackets and port removed. */
function nodeAddress(node: string): string {
  if (node.startsWith('[')) {
    const close = node.indexOf(']');
    return close > 0 ? node.slice(1, close) : node;
  }
  const colon = node.indexOf(':');
  // `192.0.2.43:47011`; a bare IPv6 address (not allowed unquoted, but seen) has several colons.
  return colon > 0 && node.indexOf(':', colon + 1) < 0 ? node.slice(0, colon) : node;
}

/**
 * The `for=` nodes of a `Forwarded` header, client first (RFC 7239): `for=192.0.2.60;proto=http,
 * for="[2001:db8::17]:4711"` → `['192.0.2.60', '2001:db8::17']`. An element without `for=` is
 * `unknown` (not an address: the walk stops there).
 */
export function forwardedFor(header: string): string[] {
  const out: string[] = [];
  let element = '';
  let quoted = false;
  const flush = () => {
    let found = 'unknown';
    for (const pair of element.split(';')) {
      const eq = pair.indexOf('=');
      if (eq > 0 && pair.slice(0, eq).trim().toLowerCase() === 'for') {
        found = nodeAddress(unquote(pair.slice(eq + 1)));
      }
    }
    if (element.trim() !== '') out.push(found);
    element = '';
  };
  for (let i = 0; i < header.length; i++) {
    const c = header[i] as string;
    if (c === '"' && header[i - 1] !== '\\') quoted = !quoted;
    if (c === ',' && !quoted) flush();
    else element += c;
  }
  flush();
  return out;
}

/** The client address function of a configuration (the peer's address when no hop is trusted). */
export function createClientAddress(
  trustProxy: TrustProxy | undefined,
  forwardedHeader: ForwardedHeader = 'x-forwarded-for',
): ClientAddress {
  if (forwardedHeader !== 'x-forwarded-for' && forwardedHeader !== 'forwarded') {
    throw new Error(
      `forwardedHeader must be 'x-forwarded-for' or 'forwarded', not '${String(forwardedHeader)}'`,
    );
  }
  const trust = trustProxy === undefined ? undefined : compileTrust(trustProxy);
  if (!trust) return peerOnly;
  return (peer, header) => {
    if (peer === undefined) return undefined;
    const raw = header(forwardedHeader);
    if (raw === null) return peer;
    // proxy-addr reads the socket address and X-Forwarded-For of a Node request; this is one.
    const chain = forwardedHeader === 'forwarded' ? forwardedFor(raw).join(', ') : raw;
    const req = { socket: { remoteAddress: peer }, headers: { 'x-forwarded-for': chain } };
    return proxyAddr(req as unknown as Parameters<typeof proxyAddr>[0], trust);
  };
}
