/**
 * `pnpm bench [--only <name>] [--json]`: runs every `bench/*.bench.ts` (or, with `--only`, the
 * suites whose file or suite name contains `<name>`; a bare word works the same), prints a table per
 * suite with every figure against the suite's baseline measured in the same run, and writes the
 * rows to `bench/results/latest.json` (git-ignored). `--json` also prints the results as JSON on
 * stdout (the tables then go to stderr) and keeps a timestamped copy in `bench/results/`.
 */

import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { type BenchRow, type BenchSuite, formatTable } from './lib';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { only: { type: 'string' }, json: { type: 'boolean', default: false } },
});
const only = (values.only ?? positionals[0] ?? '').toLowerCase();
const print = values.json ? (s: string) => process.stderr.write(`${s}\n`) : (s: string) => console.log(s);

const dir = fileURLToPath(new URL('.', import.meta.url));
const files = (await readdir(dir)).filter((f) => f.endsWith('.bench.ts')).sort();
const started = new Date();
const results: Record<string, { baseline: string; rows: BenchRow[] }> = {};
print(`# agentgov benchmarks — node ${process.version}, ${cpus().length} cores, ${started.toISOString()}\n`);
for (const file of files) {
  const fileMatches = file.toLowerCase().includes(only);
  const mod = (await import(pathToFileURL(`${dir}/${file}`).href)) as { default: BenchSuite[] };
  for (const suite of mod.default) {
    if (only && !fileMatches && !suite.name.toLowerCase().includes(only)) continue;
    const rows = await suite.run();
    results[suite.name] = { baseline: suite.baseline, rows };
    print(`${formatTable(suite, rows)}\n`);
  }
}
if (Object.keys(results).length === 0) {
  console.error(`no bench suite matches '${only}'`);
  process.exit(2);
}
const out = {
  node: process.version,
  cores: cpus().length,
  startedAt: started.toISOString(),
  suites: results,
};
const text = `${JSON.stringify(out, null, 2)}\n`;
await mkdir(`${dir}/results`, { recursive: true });
await writeFile(`${dir}/results/latest.json`, text);
if (values.json) {
  await writeFile(`${dir}/results/${started.toISOString().replace(/[:.]/g, '-')}.json`, text);
  process.stdout.write(text);
}
