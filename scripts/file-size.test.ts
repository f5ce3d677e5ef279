/**
 * The source-file size check (`scripts/check-file-size.mjs`, run by `pnpm lint`): what it counts,
 * what it skips, that its allow-list cannot go stale, and that the repository passes it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { checkFileSizes, countLines, MAX_LINES } from './check-file-size.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const lines = (n: number) => 'x\n'.repeat(n);

let tree: string | undefined;
afterEach(() => {
  if (tree) rmSync(tree, { recursive: true, force: true });
  tree = undefined;
});

function makeTree(files: Record<string, string>): string {
  tree = mkdtempSync(join(tmpdir(), 'file-size-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(tree, path)), { recursive: true });
    writeFileSync(join(tree, path), text);
  }
  return tree;
}

describe('check-file-size', () => {
  it('counts lines as wc -l does', () => {
    expect([
      countLines(''),
      countLines('a'),
      countLines('a\n'),
      countLines('a\nb'),
      countLines('a\nb\n'),
    ]).toEqual([0, 1, 1, 2, 2]);
    const root = makeTree({ 'packages/p/src/f.ts': 'a\nb\nc' });
    const wc = spawnSync('wc', ['-l', join(root, 'packages/p/src/f.ts')], { encoding: 'utf8' });
    // wc -l counts newline characters only: a last line without one is the single difference.
    expect(Number(wc.stdout.trim().split(/\s+/)[0]) + 1).toBe(countLines('a\nb\nc'));
  });

  it('fails a source file over the limit in a package, an example or the console app; not one at it', () => {
    const root = makeTree({
      'packages/p/src/at-limit.ts': lines(MAX_LINES),
      'packages/p/src/deep/over.ts': lines(MAX_LINES + 1),
      'packages/c/app/src/page.tsx': lines(MAX_LINES + 1),
      'examples/e/src/tool.mjs': lines(MAX_LINES + 1),
    });
    expect(checkFileSizes(root, { allowed: new Map() })).toEqual(
      expect.arrayContaining([
        { path: 'packages/p/src/deep/over.ts', lines: MAX_LINES + 1, problem: 'too_long' },
        { path: 'packages/c/app/src/page.tsx', lines: MAX_LINES + 1, problem: 'too_long' },
        { path: 'examples/e/src/tool.mjs', lines: MAX_LINES + 1, problem: 'too_long' },
      ]),
    );
    expect(checkFileSizes(root, { allowed: new Map() })).toHaveLength(3);
  });

  it('skips tests, dependencies, build output and files that are not source', () => {
    const root = makeTree({
      'packages/p/test/long.test.ts': lines(MAX_LINES * 2),
      'packages/p/src/node_modules/dep/index.js': lines(MAX_LINES * 2),
      'packages/p/dist/index.js': lines(MAX_LINES * 2),
      'packages/p/src/data.json': lines(MAX_LINES * 2),
      'packages/p/src/styles.css': lines(MAX_LINES * 2),
      'bench/long.bench.ts': lines(MAX_LINES * 2),
    });
    expect(checkFileSizes(root, { allowed: new Map() })).toEqual([]);
  });

  it('an allowed file may stay over; an allowed file back under the limit or gone fails (the list stays honest)', () => {
    const root = makeTree({
      'packages/p/src/generated.d.ts': lines(MAX_LINES * 3),
      'packages/p/src/split-since.ts': lines(10),
    });
    const allowed = new Map([
      ['packages/p/src/generated.d.ts', 'generated'],
      ['packages/p/src/split-since.ts', 'was long'],
      ['packages/p/src/removed.ts', 'was long'],
    ]);
    expect(checkFileSizes(root, { allowed })).toEqual([
      { path: 'packages/p/src/split-since.ts', lines: 10, problem: 'stale' },
      { path: 'packages/p/src/removed.ts', lines: 0, problem: 'stale' },
    ]);
  });

  it('the repository passes (every source file at most 400 lines, or allowed with its reason)', () => {
    expect(checkFileSizes(ROOT)).toEqual([]);
    const cli = spawnSync(process.execPath, [join(ROOT, 'scripts/check-file-size.mjs')], {
      encoding: 'utf8',
    });
    expect({ status: cli.status, stderr: cli.stderr }).toEqual({ status: 0, stderr: '' });
  });
});
