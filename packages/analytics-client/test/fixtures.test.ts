/** The recorded responses the tests replay live in the repository: a fresh clone has them. */
import { execFileSync } from 'node:child_process';
import { isAbsolute, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURE_DIR, fixtureNames } from './helpers';

describe('recorded fixtures', () => {
  it.skipIf(process.env.SESSION_ANALYTICS_FIXTURES !== undefined)(
    'are read from inside the package and tracked by git, byte for byte',
    () => {
      const packageRoot = join(import.meta.dirname, '..');
      const where = relative(packageRoot, FIXTURE_DIR);
      expect(where.startsWith('..') || isAbsolute(where)).toBe(false);
      const tracked = execFileSync('git', ['ls-files', '--eol', '--', FIXTURE_DIR], {
        cwd: packageRoot,
        encoding: 'utf8',
      })
        .split('\n')
        .filter(Boolean);
      const names = fixtureNames();
      expect(names.length).toBeGreaterThan(50);
      // Every recording's header and body file is committed, and git stores them without EOL conversion.
      for (const n of names)
        for (const ext of ['headers', 'body'])
          expect(tracked.some((l) => l.endsWith(`/${n}.${ext}`) && l.includes('attr/-text'))).toBe(true);
    },
  );
});
