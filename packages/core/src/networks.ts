/** Networks in CIDR form (`10.0.0.0/8`, `fd00::/8`, or one address), as settings take them. */
import { isIP } from 'node:net';

export type IpFamily = 'ipv4' | 'ipv6';

/** `10.0.0.0/8` or `10.1.2.3` as [address, prefix length, family]; throws naming the text otherwise. */
export function parseNetwork(text: string): [string, number, IpFamily] {
  const parts = text.trim().split('/');
  const [address = '', prefixText] = parts;
  const version = isIP(address);
  if (version === 0 || parts.length > 2)
    throw new Error(`not a network: '${text}' (expected a CIDR such as 10.0.0.0/8)`);
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : /^\d+$/.test(prefixText) ? Number(prefixText) : Number.NaN;
  if (!(prefix >= 0 && prefix <= max)) throw new Error(`not a network: '${text}' (prefix length 0–${max})`);
  return [address, prefix, version === 4 ? 'ipv4' : 'ipv6'];
}

/** `10.0.0.0/8, 192.168.1.5` (commas or white space) as a list; throws naming the first bad entry. */
export function parseNetworks(text: string | readonly string[]): string[] {
  const nets = (typeof text === 'string' ? text.split(/[\s,]+/) : [...text])
    .map((s) => s.trim())
    .filter(Boolean);
  for (const net of nets) parseNetwork(net);
  return nets;
}
