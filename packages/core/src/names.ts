/**
 * The known name nearest to a misspelt one, for "did you mean …?" hints: feature-flag names in
 * policies (@agentgov/policy) and the keys of the deployment configuration files.
 */

/** Edit distance (insertions, deletions, substitutions; an adjacent swap counts 1). */
function distance(a: string, b: string): number {
  const w = b.length + 1;
  const d = new Array<number>((a.length + 1) * w).fill(0);
  const at = (i: number, j: number): number => d[i * w + j] ?? 0;
  for (let i = 0; i <= a.length; i++) d[i * w] = i;
  for (let j = 0; j <= b.length; j++) d[j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, at(i - 2, j - 2) + 1);
      d[i * w + j] = v;
    }
  }
  return at(a.length, b.length);
}

/** The known name nearest to `name` (case and `-`/`_` ignored), if it is close enough to be a slip. */
export function nearestName(name: string, known: readonly string[]): string | undefined {
  const norm = (s: string) => s.toLowerCase().replaceAll('-', '_');
  const n = norm(name);
  let best: { name: string; d: number } | undefined;
  for (const k of known) {
    const kn = norm(k);
    const d = kn.startsWith(n) || n.startsWith(kn) ? Math.min(1, distance(n, kn)) : distance(n, kn);
    if (!best || d < best.d) best = { name: k, d };
  }
  if (!best) return undefined;
  return best.d <= Math.max(2, Math.floor(best.name.length / 3)) ? best.name : undefined;
}
