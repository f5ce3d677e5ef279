import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractTickets, isProjectKey, ticketMatcher, trackerLinkLines } from '../src/tickets';

const KEYS = ['ENG', 'OPS', 'MY_PROJ'];

describe('ticket references', () => {
  it.each([
    ['feature/ENG-12-fix', ['ENG-12']],
    ['ENG-12_fix', ['ENG-12']],
    ['fix_ENG-12', ['ENG-12']],
    ['ENG-12', ['ENG-12']],
    ['(ENG-12), [OPS-7]; ENG-12.', ['ENG-12', 'OPS-7']],
    ['ENG-1 ENG-12 ENG-123', ['ENG-1', 'ENG-12', 'ENG-123']],
    ['MY_PROJ-4 and PROJ-4', ['MY_PROJ-4']],
    ['XENG-12 ENG-12a ENG-12-3 eng-12 ENG12 ENG- -ENG-1 1ENG-2', []],
    ['UTF-8, SHA-256, ISO-8601, RFC-9110', []],
    ['ENG-012 is not ENG-12', ['ENG-012', 'ENG-12']],
    ['https://tracker.example.com/browse/ENG-42?focus=1', ['ENG-42']],
  ])('%s → %j', (text, expected) => {
    expect(ticketMatcher(KEYS)(text)).toEqual(expected);
  });

  it('only configured keys count; no keys → no tickets', () => {
    expect(extractTickets([], 'ENG-1')).toEqual([]);
    expect(extractTickets(['UTF'], 'UTF-8')).toEqual(['UTF-8']);
    expect(extractTickets(['lower', 'ENG'], 'lower-1 ENG-2')).toEqual(['ENG-2']);
    expect(isProjectKey('ENG')).toBe(true);
    expect(isProjectKey('eng')).toBe(false);
    expect(isProjectKey('1AB')).toBe(false);
  });

  it.each([
    ['feature/PROJ-123-fix', ['PROJ-123']],
    ['PROJ-123: Fix ENG-4 and MY_PROJ-5', ['PROJ-123', 'ENG-4', 'MY_PROJ-5']],
    ['X-1 x-1 XENG-12a PROJ-12-3 eng-12 1AB-2', []],
    // Keys of 2 to 32 characters (a longer run of capitals is not a key, nor any tail of it).
    [`${'K'.repeat(32)}-1 ${'L'.repeat(33)}-2`, [`${'K'.repeat(32)}-1`]],
    // No keys named: what looks like a key is one (name the keys to leave these out).
    ['UTF-8 and SHA-256', ['UTF-8', 'SHA-256']],
  ])('no project keys configured (any key): %s → %j', (text, expected) => {
    expect(ticketMatcher(undefined)(text)).toEqual(expected);
    expect(extractTickets(undefined, text)).toEqual(expected);
  });

  it('deduplicates across sources in order of first appearance', () => {
    expect(
      extractTickets(KEYS, 'feature/OPS-3', 'ENG-1: OPS-3', null, undefined, 'Fix ENG-1 again', 'ENG-2'),
    ).toEqual(['OPS-3', 'ENG-1', 'ENG-2']);
  });

  it('reads `<TrackerName>: <URL>` description lines', () => {
    const body =
      'Fixes the README.\n\nJira: https://acme.atlassian.net/browse/ENG-42\n- jira: https://x/browse/OPS-1\nNot Jira: https://x/browse/ENG-9\nJiraX: y';
    const lines = trackerLinkLines(body, 'Jira');
    expect(lines).toEqual(['https://acme.atlassian.net/browse/ENG-42', 'https://x/browse/OPS-1']);
    expect(extractTickets(KEYS, ...lines)).toEqual(['ENG-42', 'OPS-1']);
    expect(trackerLinkLines('YouTrack: https://yt/issue/ENG-5', 'YouTrack')).toEqual([
      'https://yt/issue/ENG-5',
    ]);
    expect(trackerLinkLines(null, 'Jira')).toEqual([]);
  });

  const key = fc.stringMatching(/^[A-Z][A-Z0-9]{0,5}$/);
  const num = fc.integer({ min: 0, max: 99_999 }).map(String);
  const sep = fc.constantFrom(' ', '/', '_', '.', ',', ':', '(', ')', '\n', '#', '[', ']');

  it('property: a configured reference between separators is found exactly once', () => {
    fc.assert(
      fc.property(key, num, sep, sep, fc.string({ maxLength: 20 }), (k, n, before, after, noise) => {
        const ref = `${k}-${n}`;
        const text = `${noise}${before}${ref}${after}${noise}${before}${ref}`;
        const found = ticketMatcher([k])(text);
        expect(found.filter((x) => x === ref)).toHaveLength(1);
        expect(new Set(found).size).toBe(found.length);
      }),
      { numRuns: 300 },
    );
  });

  it('property: every result is a configured key followed by digits, and occurs in the text', () => {
    fc.assert(
      fc.property(
        fc.array(key, { minLength: 1, maxLength: 3 }),
        fc.string({ maxLength: 80 }),
        fc.array(fc.tuple(key, num), { maxLength: 4 }),
        (keys, noise, refs) => {
          const text = [noise, ...refs.map(([k, n]) => `${k}-${n}`)].join(' ');
          for (const r of ticketMatcher(keys)(text)) {
            const m = /^([A-Z][A-Z0-9_]*)-(\d+)$/.exec(r);
            expect(m).not.toBeNull();
            expect(keys).toContain(m?.[1]);
            expect(text).toContain(r);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('property: with no keys configured, every configured key of 2 to 32 characters is found too, and nothing that is not a key', () => {
    fc.assert(
      fc.property(
        fc.array(key, { minLength: 1, maxLength: 3 }),
        fc.string({ maxLength: 80 }),
        fc.array(fc.tuple(key, num, sep), { maxLength: 4 }),
        (keys, noise, refs) => {
          const text = [noise, ...refs.map(([k, n, s]) => `${s}${k}-${n}${s}`)].join(' ');
          const any = ticketMatcher(undefined)(text);
          for (const r of ticketMatcher(keys.filter((k) => k.length >= 2))(text)) expect(any).toContain(r);
          for (const r of any) {
            expect(r).toMatch(/^[A-Z][A-Z0-9_]+-\d+$/);
            expect(text).toContain(r);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('property: a reference glued to letters or digits is never a ticket', () => {
    fc.assert(
      fc.property(
        key,
        num,
        fc.stringMatching(/^[A-Za-z0-9]$/),
        fc.stringMatching(/^[A-Za-z0-9]$/),
        (k, n, l, r) => {
          expect(ticketMatcher([k])(`${l}${k}-${n}`)).not.toContain(`${k}-${n}`);
          expect(ticketMatcher([k])(`${k}-${n}${r}`).some((x) => x === `${k}-${n}`)).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });
});
