/**
 * Where a connector's requests may go (`egressFetch`): checked on the address each connection is
 * made to — written out or resolved from a name — against a real HTTP server on loopback, which
 * must never see a refused request; and the pull's error says why in words.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type EgressPolicy, egressAllows, egressFetch } from '../src/egress';
import { getJson } from '../src/sync/pull-http';

let server: Server;
let port: number;
let hits = 0;
beforeAll(async () => {
  server = createServer((_req, res) => {
    hits++;
    res.setHeader('content-type', 'application/json');
    res.end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const refused = async (f: typeof fetch, url: string) => {
  const before = hits;
  const error = await f(url).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, url).toBeInstanceOf(TypeError);
  expect(String((error as Error).cause)).toMatch(/not an address connectors may reach/);
  expect(hits, url).toBe(before);
};

describe('egressAllows: the rule on one address', () => {
  it('private (the default) refuses link-local and metadata addresses, in any spelling; public refuses loopback and private ranges too', () => {
    const priv: EgressPolicy = { mode: 'private' };
    const pub: EgressPolicy = { mode: 'public' };
    for (const a of [
      '169.254.169.254',
      '::ffff:169.254.169.254',
      'fe80::1',
      '100.100.100.200',
      'fd00:ec2::254',
      '0.0.0.0',
      '::',
      '224.0.0.1',
    ])
      expect(egressAllows(priv, a), a).toBe(false);
    for (const a of ['127.0.0.1', '10.1.2.3', '192.168.0.10', '::1', 'fd12::1', '8.8.8.8'])
      expect(egressAllows(priv, a), a).toBe(true);
    for (const a of [
      '127.0.0.1',
      '::ffff:127.0.0.1',
      '10.1.2.3',
      '172.31.0.1',
      '192.168.0.10',
      '::1',
      'fd12::1',
      '100.64.0.1',
      '169.254.169.254',
    ])
      expect(egressAllows(pub, a), a).toBe(false);
    for (const a of ['8.8.8.8', '2606:4700::1111', '172.32.0.1']) expect(egressAllows(pub, a), a).toBe(true);
    expect(egressAllows({ mode: 'public', allow: ['10.20.0.0/16'] }, '10.20.3.4')).toBe(true);
    expect(egressAllows({ mode: 'public', allow: ['10.20.0.0/16'] }, '10.21.3.4')).toBe(false);
    expect(egressAllows({ mode: 'any' }, '169.254.169.254')).toBe(true);
    // NAT64 and 6to4 addresses reach the IPv4 address inside them (found in review).
    for (const a of [
      '64:ff9b::a9fe:a9fe',
      '64:ff9b::169.254.169.254',
      '64:ff9b:1::a9fe:a9fe',
      '2002:a9fe:a9fe::1',
    ])
      expect(egressAllows(priv, a), a).toBe(false);
    for (const a of ['64:ff9b::a00:1', '64:ff9b::7f00:1', '2002:c0a8:1::1'])
      expect(egressAllows(pub, a), a).toBe(false);
    expect(egressAllows(pub, '64:ff9b::808:808')).toBe(true);
    expect(egressAllows(priv, '2002:a00:1::1')).toBe(true);
    expect(egressAllows(priv, 'not-an-address')).toBe(false);
  });

  it('property: under public, every address of 10/8, 127/8, 169.254/16 and 192.168/16 is refused, every address the rule lets through is outside them', () => {
    const octet = fc.integer({ min: 0, max: 255 });
    fc.assert(
      fc.property(fc.tuple(octet, octet, octet, octet), ([a, b, c, d]) => {
        const address = `${a}.${b}.${c}.${d}`;
        const inside = a === 10 || a === 127 || (a === 169 && b === 254) || (a === 192 && b === 168);
        if (inside) expect(egressAllows({ mode: 'public' }, address)).toBe(false);
        if (egressAllows({ mode: 'public' }, address)) expect(inside).toBe(false);
      }),
    );
  });
});

describe('egressFetch: every connection checked where it is made', () => {
  it('public refuses loopback written out and by name (the lookup), before a byte is sent; allow lets one network through', async () => {
    const pub = egressFetch({ mode: 'public' });
    await refused(pub, `http://127.0.0.1:${port}/`);
    await refused(pub, `http://[::ffff:127.0.0.1]:${port}/`);
    await refused(pub, `http://localhost:${port}/`);
    const allowed = egressFetch({ mode: 'public', allow: ['127.0.0.0/8', '::1/128'] });
    const before = hits;
    const res = await allowed(`http://localhost:${port}/`);
    expect(await res.json()).toEqual({ ok: true });
    expect(hits).toBe(before + 1);
  });

  it('private (the default) reaches loopback, never the metadata address', async () => {
    const priv = egressFetch({ mode: 'private' });
    expect((await priv(`http://127.0.0.1:${port}/`)).status).toBe(200);
    await refused(priv, 'http://169.254.169.254/latest/meta-data/');
    await refused(priv, 'http://[fd00:ec2::254]/latest/meta-data/');
  });

  it('a pull refused by the rule says so in its error (the connector’s errorDetails)', async () => {
    const error = await getJson(
      new URL(`http://localhost:${port}/rest/api/2/search`),
      z.object({}),
      undefined,
      {
        fetch: egressFetch({ mode: 'public' }),
      },
    ).catch((e: unknown) => e);
    expect(String((error as Error).message)).toMatch(
      /^GET http:\/\/localhost:\d+\/rest\/api\/2\/search failed: localhost \((?:127\.0\.0\.1|::1)\) is not an address connectors may reach/,
    );
  });
});
