/**
 * Ticket references `{PROJECT}-{NUMBER}`: extracted from branch names, titles, commit messages
 * and the description line `<TrackerName>: <URL>`. When the tracker names its project keys, a
 * reference counts only when its key is one of them (so `UTF-8` or `SHA-256` never are tickets);
 * when it names none (`projectKeys` left out: the spec's tracker configuration has only
 * `defaultMergeTransition`), any key of 2 to 32 characters counts (`[A-Z][A-Z0-9_]{1,31}`, as
 * trackers make them; `SHA-256` then does too). Either way a reference counts only when it
 * stands alone: not preceded by a letter, digit or `-`, not followed by a letter or digit or by
 * `-<digit>`; `_`, `/`, `.`, spaces and punctuation are boundaries (`feature/ENG-12-fix`,
 * `ENG-12_fix`, `fix_ENG-12`). Keys are matched exactly (case-sensitive, as trackers print them),
 * numbers as written (`ENG-012` is not `ENG-12`).
 */

const KEY_RE = /^[A-Z][A-Z0-9_]*$/;

/** True when `key` is a valid project key (upper case letter, then upper case, digits or `_`). */
export function isProjectKey(key: string): boolean {
  return KEY_RE.test(key);
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Any project key (no keys configured): 2 to 32 characters. Bounded: in `A_A_A_…` every letter
 * may start a key, and an unbounded key would make each start scan to the end of the run
 * (quadratic: a 64 KiB commit message held the event loop for ~1 s).
 */
const ANY_KEY = '[A-Z][A-Z0-9_]{1,31}';

/**
 * A reusable extractor for a tracker's project keys; `undefined`: the tracker names none, any key
 * counts; an empty list: none does (no tracker).
 */
export function ticketMatcher(projectKeys: readonly string[] | undefined): (text: string) => string[] {
  let alternatives = ANY_KEY;
  if (projectKeys !== undefined) {
    const keys = [...new Set(projectKeys.filter(isProjectKey))].sort((a, b) => b.length - a.length);
    if (keys.length === 0) return () => [];
    // Longest keys first, so that of two configured keys `MY_ENG` and `ENG`, `MY_ENG-1` is MY_ENG's.
    alternatives = keys.map(escapeRe).join('|');
  }
  const re = new RegExp(`(?<![A-Za-z0-9-])(${alternatives})-([0-9]+)(?![0-9A-Za-z]|-[0-9])`, 'g');
  return (text: string) => {
    const out: string[] = [];
    const seen = new Set<string>();
    for (const m of text.matchAll(re)) {
      const ref = `${m[1]}-${m[2]}`;
      if (!seen.has(ref)) {
        seen.add(ref);
        out.push(ref);
      }
    }
    return out;
  };
}

/** Ticket references in `texts`, in order of first appearance, deduplicated. */
export function extractTickets(
  projectKeys: readonly string[] | undefined,
  ...texts: readonly (string | null | undefined)[]
): string[] {
  const match = ticketMatcher(projectKeys);
  const seen = new Set<string>();
  const out: string[] = [];
  for (const t of texts) {
    if (!t) continue;
    for (const ref of match(t)) {
      if (!seen.has(ref)) {
        seen.add(ref);
        out.push(ref);
      }
    }
  }
  return out;
}

/**
 * The text of every description line of the form `<trackerName>: <URL>` (case-insensitive name,
 * optional leading `-`/`*` bullet). The URL is returned so its ticket reference (`…/browse/ENG-12`)
 * can be extracted.
 */
export function trackerLinkLines(description: string | null | undefined, trackerName: string): string[] {
  if (!description) return [];
  const re = new RegExp(`^\\s*(?:[-*]\\s+)?${escapeRe(trackerName)}\\s*:\\s*(\\S+)\\s*$`, 'gim');
  return [...description.matchAll(re)].map((m) => m[1] ?? '');
}
