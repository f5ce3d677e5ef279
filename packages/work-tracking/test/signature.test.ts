import { sign, verify } from '@octokit/webhooks-methods';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signatureFrom, signBody, verifySignature } from '../src/signature';
import { mergedPullRequest } from './payloads';

const enc = (s: string) => new TextEncoder().encode(s);

describe('webhook signatures', () => {
  const body = JSON.stringify(mergedPullRequest());

  it('agrees with @octokit/webhooks-methods in both directions', async () => {
    const theirs = await sign('It’s a Secret to Everybody', body);
    expect(
      verifySignature(enc(body), new Headers({ 'x-hub-signature-256': theirs }), [
        'It’s a Secret to Everybody',
      ]),
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
    expect(verifySignature(enc(body), new Headers({ 'x-hub-signature': signBody('s', body) }), ['s'])).toBe(
      true,
    );
    expect(
      verifySignature(enc(body), new Headers({ 'x-hub-signature': `sha1=${'a'.repeat(40)}` }), ['s']),
    ).toBe(false);
    // With both, X-Hub-Signature-256 is the one checked.
    const both = new Headers({
      'x-hub-signature-256': signBody('s', body),
      'x-hub-signature': signBody('other', body),
    });
    expect(verifySignature(enc(body), both, ['s'])).toBe(true);
  });

  it('accepts the Gitea and Forgejo headers (bare hex), upper-case hex too', () => {
    const hex = signBody('s', body).slice('sha256='.length);
    expect(verifySignature(enc(body), new Headers({ 'x-gitea-signature': hex }), ['s'])).toBe(true);
    expect(verifySignature(enc(body), new Headers({ 'x-forgejo-signature': hex.toUpperCase() }), ['s'])).toBe(
      true,
    );
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
    for (const h of cases) expect(verifySignature(enc(body), new Headers(h), ['s'])).toBe(false);
    expect(verifySignature(enc(body), new Headers({ 'x-hub-signature-256': good }), [])).toBe(false);
    expect(verifySignature(enc(body), new Headers({ 'x-hub-signature-256': good }), [''])).toBe(false);
    expect(signatureFrom(new Headers({ 'x-hub-signature-256': 'sha256=zz' }))).toBeUndefined();
  });

  it('rotation: either of two secrets verifies; a retired one does not', () => {
    const h = (secret: string) => new Headers({ 'x-hub-signature-256': signBody(secret, body) });
    expect(verifySignature(enc(body), h('new'), ['new', 'old'])).toBe(true);
    expect(verifySignature(enc(body), h('old'), ['new', 'old'])).toBe(true);
    expect(verifySignature(enc(body), h('old'), ['new'])).toBe(false);
  });

  it('property: the signature covers every byte', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 256 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (bytes, at, flip) => {
          const headers = new Headers({ 'x-hub-signature-256': signBody('k', bytes) });
          expect(verifySignature(bytes, headers, ['k'])).toBe(true);
          const changed = bytes.slice();
          const i = at % changed.length;
          changed[i] = (changed[i] as number) ^ flip;
          expect(verifySignature(changed, headers, ['k'])).toBe(false);
        },
      ),
      { numRuns: 200 },
    );
  });
});
