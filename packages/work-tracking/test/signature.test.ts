import { sign, verify } from '@octokit/webhooks-methods';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SIGNATURE_HEADERS, signatureFrom, signBody, verifySignature } from '../src/signature';
import { mergedPullRequest } from './payloads';

const enc = (s: string) => new TextEncoder().encode(s);
/** verifySignature answers a Result: true when it is ok. */
const verifies = (...args: Parameters<typeof verifySignature>) => verifySignature(...args).isOk();

describe('webhook signatures', () => {
  const body = JSON.stringify(mergedPullRequest());

  it('agrees with @octokit/webhooks-methods in both directions', async () => {
    const theirs = await sign('It’s a Secret to Everybody', body);
    expect(
      verifies(enc(body), new Headers({ 'x-hub-signature-256': theirs }), ['It’s a Secret to Everybody']),
    ).toBe(true);
    expect(
      await verify('It’s a Secret to Everybody', body, signBody('It’s a Secret to Everybody', body)),
    ).toBe(true);
    // GitHub's documented test vector.
    expect(signBody("It's a Secret to Everybody", 'Hello, World!')).toBe(
      'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
    );
  });

  it('accepts Jira’s `X-Hub-Signature: sha256=…` and refuses GitHub’s SHA-1 form there', () => {
    expect(verifies(enc(body), new Headers({ 'x-hub-signature': signBody('s', body) }), ['s'])).toBe(true);
    expect(verifies(enc(body), new Headers({ 'x-hub-signature': `sha1=${'a'.repeat(40)}` }), ['s'])).toBe(
      false,
    );
    // With both, X-Hub-Signature-256 is the one checked.
    const both = new Headers({
      'x-hub-signature-256': signBody('s', body),
      'x-hub-signature': signBody('other', body),
    });
    expect(verifies(enc(body), both, ['s'])).toBe(true);
  });

  it('accepts the Gitea and Forgejo headers (bare hex), upper-case hex too', () => {
    const hex = signBody('s', body).slice('sha256='.length);
    expect(verifies(enc(body), new Headers({ 'x-gitea-signature': hex }), ['s'])).toBe(true);
    expect(verifies(enc(body), new Headers({ 'x-forgejo-signature': hex.toUpperCase() }), ['s'])).toBe(true);
  });

  it('refuses missing, malformed, SHA-1 and wrong signatures', () => {
    const good = signBody('s', body);
    const cases: Record<string, string>[] = [
      {},
      { 'x-hub-signature-256': good.slice(7) },
      { 'x-hub-signature-256': `sha1=${good.slice(7)}` },
      { 'x-hub-signature-256': `${good}00` },
      { 'x-hub-signature': `sha1=${'0'.repeat(40)}` },
      { 'x-hub-signature-256': signBody('other', body) },
      { 'x-hub-signature-256': signBody('s', `${body} `) },
    ];
    for (const h of cases) expect(verifies(enc(body), new Headers(h), ['s'])).toBe(false);
    expect(verifies(enc(body), new Headers({ 'x-hub-signature-256': good }), [])).toBe(false);
    expect(verifies(enc(body), new Headers({ 'x-hub-signature-256': good }), [''])).toBe(false);
    expect(signatureFrom(new Headers({ 'x-hub-signature-256': 'sha256=zz' }))).toBeUndefined();
  });

  it('rotation: either of two secrets verifies; a retired one does not', () => {
    const h = (secret: string) => new Headers({ 'x-hub-signature-256': signBody(secret, body) });
    expect(verifies(enc(body), h('new'), ['new', 'old'])).toBe(true);
    expect(verifies(enc(body), h('old'), ['new', 'old'])).toBe(true);
    expect(verifies(enc(body), h('old'), ['new'])).toBe(false);
  });

  it('property: the signature covers every byte', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 256 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (bytes, at, flip) => {
          const headers = new Headers({ 'x-hub-signature-256': signBody('k', bytes) });
          expect(verifies(bytes, headers, ['k'])).toBe(true);
          const changed = bytes.slice();
          const i = at % changed.length;
          changed[i] = (changed[i] as number) ^ flip;
          expect(verifies(changed, headers, ['k'])).toBe(false);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('answers why it refuses, as a VerificationError, and which header verified', () => {
    const good = signBody('s', body);
    const reasonOf = (headers: Record<string, string>, secrets: string[]) => {
      const r = verifySignature(enc(body), new Headers(headers), secrets);
      return r.isErr() ? [r.error.code, r.error.reason, r.error.message] : ['ok', r.value.header];
    };
    expect(reasonOf({ 'x-hub-signature-256': good }, ['s'])).toEqual(['ok', 'x-hub-signature-256']);
    expect(reasonOf({ 'x-gitea-signature': good.slice(7) }, ['s'])).toEqual(['ok', 'x-gitea-signature']);
    expect(reasonOf({ 'x-hub-signature-256': good }, ['', ''])).toEqual([
      'invalid_type',
      'invalid_key',
      'no webhook secret is configured',
    ]);
    expect(reasonOf({}, ['s'])).toEqual([
      'invalid_type',
      'invalid_signature',
      'the request carries no signature',
    ]);
    expect(reasonOf({ 'x-hub-signature': `sha1=${'0'.repeat(40)}` }, ['s'])[2]).toMatch(
      /x-hub-signature header/,
    );
    expect(reasonOf({ 'x-hub-signature-256': signBody('t', body) }, ['s'])[2]).toMatch(/no webhook secret/);
  });

  it('property: never throws, whatever the headers and secrets', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 64 }),
        fc.dictionary(fc.constantFrom(...SIGNATURE_HEADERS, 'x-other'), fc.string({ maxLength: 80 })),
        fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }),
        (bytes, headers, secrets) => {
          const clean = Object.fromEntries(
            Object.entries(headers).filter(([, v]) => /^[\x20-\x7e]*$/.test(v)),
          );
          const r = verifySignature(bytes, new Headers(clean), secrets);
          expect(r.isOk() || r.error.reason === 'invalid_key' || r.error.reason === 'invalid_signature').toBe(
            true,
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});
