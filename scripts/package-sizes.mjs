#!/usr/bin/env node
/**
 * The packed size of every published package (`npm pack --dry-run`, over the built `dist`), written
 * into one line of its README:
 *
 *   <!-- package-size -->**Size:** 41.0 kB packed (180.2 kB unpacked, 23 files; measured by `node scripts/package-sizes.mjs`).
 *
 *   node scripts/package-sizes.mjs           update the lines (append one where missing)
 *   node scripts/package-sizes.mjs --check   fail when a line is missing or off by more than 10 %
 *   node scripts/package-sizes.mjs --json    print the figures
 *
 * Run `pnpm build` first. The tolerance keeps ordinary edits from failing CI; a change in what is
 * shipped (source maps, a bundled dependency, a new entry point) does not pass unnoticed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MARKER = '<!-- package-size -->';
const TOLERANCE = 0.1;
const check = process.argv.includes('--check');
const json = process.argv.includes('--json');

const kB = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;

function packed(dir) {
  const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: dir,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`npm pack in ${dir} failed: ${r.stderr}`);
  const [info] = JSON.parse(r.stdout);
  return { size: info.size, unpackedSize: info.unpackedSize, files: info.entryCount };
}

function sizeLine({ size, unpackedSize, files }) {
  return `${MARKER}**Size:** ${kB(size)} packed (${kB(unpackedSize)} unpacked, ${files} files; measured by \`node scripts/package-sizes.mjs\`).`;
}

const stale = [];
const figures = {};
for (const folder of readdirSync(join(ROOT, 'packages')).sort()) {
  const dir = join(ROOT, 'packages', folder);
  const manifestFile = join(dir, 'package.json');
  if (!existsSync(manifestFile)) continue;
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
  if (manifest.private) continue;
  if (!existsSync(join(dir, 'dist'))) throw new Error(`${manifest.name}: no dist — run pnpm build first`);
  const now = packed(dir);
  figures[manifest.name] = now;
  const readmeFile = join(dir, 'README.md');
  const readme = readFileSync(readmeFile, 'utf8');
  const current = readme.split('\n').find((l) => l.startsWith(MARKER));
  if (check) {
    const stated = current && /\*\*Size:\*\* ([\d.]+) kB packed/.exec(current);
    const statedBytes = stated ? Number(stated[1]) * 1000 : undefined;
    if (statedBytes === undefined) stale.push(`${manifest.name}: README has no ${MARKER} line`);
    else if (Math.abs(statedBytes - now.size) / now.size > TOLERANCE) {
      stale.push(`${manifest.name}: README says ${kB(statedBytes)}, the tarball is ${kB(now.size)}`);
    }
    continue;
  }
  if (json) continue; // --json only prints the figures
  const line = sizeLine(now);
  const next = current ? readme.replace(current, line) : `${readme.replace(/\n*$/, '\n')}\n${line}\n`;
  if (next !== readme) writeFileSync(readmeFile, next);
}

if (json) console.log(JSON.stringify(figures, null, 2));
else
  for (const [name, f] of Object.entries(figures)) console.log(`${name}: ${kB(f.size)} (${f.files} files)`);
if (stale.length > 0) {
  console.error(
    `Package sizes in the READMEs are stale (run node scripts/package-sizes.mjs):\n  ${stale.join('\n  ')}`,
  );
  process.exit(1);
}
