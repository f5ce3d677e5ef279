/**
 * `pnpm bench [filter]`: runs every `bench/*.bench.ts` (or those whose file name contains
 * `filter`), prints a table per suite, and writes the rows to `bench/results/latest.json`.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type BenchRow, type BenchSuite, formatTable } from './lib';

const dir = fileURLToPath(new URL('.', import.meta.url));
const filter = process.argv[2] ?? '';
const files = (await readdir(dir)).filter((f) => f.endsWith('.bench.ts') && f.includes(filter)).sort();
if (files.length === 0) {
  console.error(`no bench files match '${filter}'`);
  process.exit(2);
}

const results: Record<string, BenchRow[]> = {};
console.log(`# agentgov benchmarks — node ${process.version}, ${new Date().toISOString()}\n`);
for (const file of files) {
  const mod = (await import(pathToFileURL(`${dir}/${file}`).href)) as { default: BenchSuite[] };
  for (const suite of mod.default) {
    const rows = await suite.run();
    results[suite.name] = rows;
    console.log(`${formatTable(suite, rows)}\n`);
  }
}
await mkdir(`${dir}/results`, { recursive: true });
await writeFile(`${dir}/results/latest.json`, `${JSON.stringify(results, null, 2)}\n`);
