/**
 * Where a connector's requests may go. A connector's URL (`baseUrl`, `apiBaseUrl`) is its tenant
 * admin's to choose, and the server sends it the tenant's credentials and reads its answers, so
 * without a rule any admin could have the server call what only the server reaches: the cloud's
 * metadata service (instance credentials), the server's sidecars on loopback, the private network.
 *
 * `egressFetch(policy)` is a `fetch` whose every connection is checked against the policy at the
 * moment it is made — on the address the name resolved to, so a name that resolves to a refused
 * address (DNS rebinding included) is refused the same as the address written out. Refused, it
 * fails like an unreachable host (`EgressRefusedError`), before a byte is sent.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { type IpFamily, parseNetwork } from '@agentgov/core';
import ipaddr from 'ipaddr.js';
import { Agent, fetch as undiciFetch } from 'undici';

/**
 * - `public`: only public addresses — loopback, private (RFC 1918, unique-local, CGNAT),
 *   link-local and metadata addresses are refused. For a server whose connectors reach SaaS only.
 * - `private` (the default): everything but link-local and cloud metadata addresses
 *   (169.254.0.0/16, fe80::/10, 100.100.100.200, fd00:ec2::254), unspecified and multicast ones —
 *   for self-hosted trackers on the private network.
 * - `any`: no rule (tests, development).
 */
export type EgressMode = 'public' | 'private' | 'any';

export interface EgressPolicy {
  mode: EgressMode;
  /** Networks allowed whatever the mode (CIDR, e.g. `10.20.0.0/16`, or one address). */
  allow?: readonly string[];
}

/** The default: every address but link-local, cloud metadata, unspecified and multicast ones. */
export const DEFAULT_EGRESS: EgressPolicy = { mode: 'private' };

export class EgressRefusedError extends Error {
  override name = 'EgressRefusedError';
  readonly code = 'EGRESS_REFUSED';
}

type Family = IpFamily;
const ALWAYS_REFUSED: readonly [string, number, Family][] = [
  ['0.0.0.0', 8, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'],
  ['100.100.100.200', 32, 'ipv4'],
  ['224.0.0.0', 4, 'ipv4'],
  ['240.0.0.0', 4, 'ipv4'],
  ['::', 128, 'ipv6'],
  ['fe80::', 10, 'ipv6'],
  ['fd00:ec2::254', 128, 'ipv6'],
  ['ff00::', 8, 'ipv6'],
];
const NOT_PUBLIC: readonly [string, number, Family][] = [
  ['127.0.0.0', 8, 'ipv4'],
  ['10.0.0.0', 8, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['::1', 128, 'ipv6'],
  ['fc00::', 7, 'ipv6'],
];

function blockListOf(nets: readonly [string, number, Family][]): BlockList {
  const list = new BlockList();
  for (const [address, prefix, family] of nets) list.addSubnet(address, prefix, family);
  return list;
}

/** Whether `policy` lets a connection go to `address` (an IP address). */
export function egressAllows(policy: EgressPolicy, address: string): boolean {
  return compile(policy)(address);
}

function compile(policy: EgressPolicy): (address: string) => boolean {
  if (policy.mode === 'any') return () => true;
  const allowed = blockListOf((policy.allow ?? []).map(parseNetwork));
  const refused = blockListOf(policy.mode === 'public' ? [...ALWAYS_REFUSED, ...NOT_PUBLIC] : ALWAYS_REFUSED);
  const one = (address: string): boolean => {
    const family: Family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (allowed.check(address, family)) return true;
    return !refused.check(address, family);
  };
  return (raw) => {
    // An IPv4-mapped IPv6 address is checked as the IPv4 address it is.
    const address = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(raw)?.[1] ?? raw;
    if (isIP(address) === 0) return false;
    // A NAT64 (64:ff9b::/96, 64:ff9b:1::/48) or 6to4 (2002::/16) address reaches the IPv4
    // address inside it: both must be allowed.
    const inner = embeddedIPv4(address);
    return one(address) && (inner === undefined || one(inner));
  };
}

/** The IPv4 address inside a NAT64 or 6to4 IPv6 address, if `address` is one. */
function embeddedIPv4(address: string): string | undefined {
  if (isIP(address) !== 6) return undefined;
  const w = ipaddr.IPv6.parse(address).parts;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  if (w[0] === 0x64 && w[1] === 0xff9b && (w[2] === 0 || w[2] === 1))
    return v4(w[6] as number, w[7] as number);
  if (w[0] === 0x2002) return v4(w[1] as number, w[2] as number);
  return undefined;
}

const refusal = (host: string, address: string) =>
  new EgressRefusedError(
    `${host} (${address}) is not an address connectors may reach (AGENTGOV_CONNECTOR_EGRESS / AGENTGOV_CONNECTOR_NETWORKS)`,
  );

/**
 * A `fetch` whose connections go only where `policy` allows (see the module comment); with mode
 * `any` and no networks, the global `fetch` itself.
 */
export function egressFetch(policy: EgressPolicy): typeof fetch {
  if (policy.mode === 'any') return globalThis.fetch;
  const allows = compile(policy);
  const lookup = (
    hostname: string,
    options: LookupOptions,
    callback: (
      error: NodeJS.ErrnoException | null,
      address: string | LookupAddress[],
      family?: number,
    ) => void,
  ) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      const list = addresses as LookupAddress[];
      const refused = list.find((a) => !allows(a.address));
      if (refused) return callback(refusal(hostname, refused.address), '');
      if (options.all) return callback(null, list);
      const first = list[0];
      if (!first)
        return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
      callback(null, first.address, first.family);
    });
  };
  const dispatcher = new Agent({ connect: { lookup } });
  const guarded = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : input);
    // A host written as an address is connected to without a lookup: checked here.
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) !== 0 && !allows(host))
      throw new TypeError('fetch failed', { cause: refusal(host, host) });
    return (await undiciFetch(
      input as Parameters<typeof undiciFetch>[0],
      { ...(init as object), dispatcher } as Parameters<typeof undiciFetch>[1],
    )) as unknown as Response;
  };
  return guarded as typeof fetch;
}
