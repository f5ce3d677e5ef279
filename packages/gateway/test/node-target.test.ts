/**
 * The Node path reads a plain request target (path and query) without building a URL: for any
 * target, what it reads must be what `new URL` gives (dot segments, escapes, `//`, quotes and
 * non-ASCII all go through `new URL`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nodeIncoming } from '../src/node';

function incomingFor(target: string) {
  const req = { url: target, method: 'GET', headers: { host: 'gw.example' }, socket: {} };
  return nodeIncoming(req as unknown as IncomingMessage, {} as ServerResponse);
}

const pieces = [
  '/',
  '//',
  '.',
  '..',
  '%2e',
  '%2F',
  '%',
  '?',
  '#',
  "'",
  '"',
  ' ',
  '=',
  '&',
  '+',
  'a',
  'Z',
  '9',
  '-',
  '_',
  '~',
  'é',
  '\\',
  '@',
  ':',
  ';',
];

describe('Node request target', () => {
  it('reads the same path and query as new URL, for any target', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 12 }), (parts) => {
        const target = `/${parts.join('')}`;
        let expected: { pathname: string; search: string };
        try {
          const url = new URL(target, 'http://gw.example');
          expected = { pathname: url.pathname, search: url.search };
        } catch {
          return; // not a URL: the pipeline answers 400 from url(), tested in node.test.ts
        }
        const got = incomingFor(target).target();
        expect({ pathname: got.pathname, search: got.search }).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('splits a plain target without a URL', () => {
    expect(incomingFor('/api/v1/policies/abc?limit=5&cursor=x').target()).toEqual({
      pathname: '/api/v1/policies/abc',
      search: '?limit=5&cursor=x',
    });
    expect(incomingFor('/api/v1/x?').target()).toEqual({ pathname: '/api/v1/x', search: '' });
  });
});
