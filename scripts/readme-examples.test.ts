/**
 * (Over 300 lines on purpose: extraction, the workspace linking, type-check, run and the
 * extractor's own test are one pipeline, read top to bottom; splitting it would only scatter it.)
 *
 * READMEs that cannot drift: every ```ts / ```js block of every package README (and of the root
 * and example READMEs) is extracted, type-checked (`tsc`, strict, `nodenext` and `bundler`) and run as
 * ESM (`node`, in a fresh working directory) against the BUILT packages (`dist`, as an installed
 * package would be) — `pnpm build` first.
 *
 * A block opts out with a marker comment right above its fence that says why:
 *   <!-- not-executed: a wiring sketch with elided arguments -->   neither type-checked nor run
 *   <!-- typecheck-only: needs a running OIDC issuer -->           type-checked, not run
 *   <!-- readme-check: run-twice -->                               run twice in the same directory
 * (run-twice: a persistent example must behave the same on its second run). Blocks are independent
 * programs; a marker without a reason fails the test.
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const ts = require('typescript') as typeof import('typescript');

/**
 * READMEs left out as a whole, with the reason. Packages other engineers are writing right now
 * are checked like every other README; add one here only with a reason when its blocks cannot run.
 */
const EXCLUDED_READMES: Record<string, string> = {};

interface Block {
  readme: string;
  line: number;
  lang: 'ts' | 'js';
  code: string;
  mode: 'run' | 'typecheck' | 'skip';
  reason: string;
  runTwice: boolean;
  file: string;
}

const LANGS: Record<string, 'ts' | 'js'> = {
  ts: 'ts',
  typescript: 'ts',
  mts: 'ts',
  js: 'js',
  javascript: 'js',
  mjs: 'js',
};
const MARKER = /<!--\s*(not-executed|typecheck-only|readme-check)\s*:?\s*([\s\S]*?)\s*-->/g;

function readmes(): string[] {
  const out = [join(ROOT, 'README.md')];
  for (const parent of ['packages', 'examples']) {
    for (const name of readdirSync(join(ROOT, parent)).sort()) {
      const f = join(ROOT, parent, name, 'README.md');
      if (existsSync(f)) out.push(f);
    }
  }
  return out.filter((f) => existsSync(f));
}

/** The fenced ts/js blocks of one README, with the markers written above each. */
function extractBlocks(text: string, readme: string): Omit<Block, 'file'>[] {
  const lines = text.split(/\r?\n/);
  const blocks: Omit<Block, 'file'>[] = [];
  let i = 0;
  while (i < lines.length) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([A-Za-z]*)[^`]*$/.exec(lines[i] ?? '');
    if (!open) {
      i++;
      continue;
    }
    const [, indent = '', fence = '```', info = ''] = open;
    const start = i;
    const body: string[] = [];
    i++;
    while (i < lines.length && !new RegExp(`^\\s*${fence[0]}{${fence.length},}\\s*$`).test(lines[i] ?? '')) {
      body.push(
        (lines[i] ?? '').startsWith(indent) ? (lines[i] ?? '').slice(indent.length) : (lines[i] ?? ''),
      );
      i++;
    }
    i++;
    const lang = LANGS[info.toLowerCase()];
    if (!lang) continue;
    // Markers: the HTML comments between the previous non-blank, non-comment line and the fence.
    let j = start - 1;
    const above: string[] = [];
    while (
      j >= 0 &&
      ((lines[j] ?? '').trim() === '' || /-->\s*$/.test(lines[j] ?? '') || /^\s*<!--/.test(lines[j] ?? ''))
    ) {
      above.unshift(lines[j] ?? '');
      j--;
    }
    let mode: Block['mode'] = 'run';
    let reason = '';
    let runTwice = false;
    for (const m of above.join('\n').matchAll(MARKER)) {
      const [, kind, text = ''] = m;
      if (kind === 'readme-check') {
        if (/run-twice/.test(text)) runTwice = true;
        continue;
      }
      mode = kind === 'not-executed' ? 'skip' : mode === 'skip' ? 'skip' : 'typecheck';
      reason = text;
    }
    blocks.push({ readme, line: start + 1, lang, code: body.join('\n'), mode, reason, runTwice });
  }
  return blocks;
}

const isBuiltin = (s: string) => s.startsWith('node:') || require('node:module').builtinModules.includes(s);
const packageOf = (s: string) =>
  s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : (s.split('/')[0] ?? s);

function specifiers(code: string): string[] {
  const out = new Set<string>();
  for (const m of code.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"]([^'"./][^'"]*)['"]/g)) {
    const s = m[1] ?? '';
    if (!isBuiltin(s)) out.add(packageOf(s));
  }
  return [...out];
}

function link(target: string, at: string): void {
  if (existsSync(at)) return;
  mkdirSync(dirname(at), { recursive: true });
  symlinkSync(target, at, 'dir');
}

let work = '';
const blocks: Block[] = [];
let typeErrors = new Map<string, string[]>();
const workspace = new Map<string, string>();

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'agentgov-readme-'));
  for (const parent of ['packages']) {
    for (const name of readdirSync(join(ROOT, parent))) {
      const pj = join(ROOT, parent, name, 'package.json');
      if (existsSync(pj)) workspace.set(JSON.parse(readFileSync(pj, 'utf8')).name, join(ROOT, parent, name));
    }
  }
  for (const [name, dir] of workspace) link(dir, join(work, 'node_modules', name));
  const searchDirs = [
    join(ROOT, 'node_modules'),
    ...['packages', 'examples'].flatMap((p) =>
      readdirSync(join(ROOT, p)).map((n) => join(ROOT, p, n, 'node_modules')),
    ),
  ];
  const linkThirdParty = (pkg: string) => {
    for (const candidate of [pkg, `@types/${pkg.replace(/^@([^/]+)\//, '$1__')}`]) {
      const found = searchDirs
        .map((d) => join(d, candidate))
        .find((d) => existsSync(join(d, 'package.json')));
      if (found) link(found, join(work, 'node_modules', candidate));
    }
  };
  linkThirdParty('node');
  let n = 0;
  for (const readme of readmes()) {
    const rel = relative(ROOT, readme);
    if (EXCLUDED_READMES[rel]) continue;
    for (const b of extractBlocks(readFileSync(readme, 'utf8'), rel)) {
      n++;
      const slug = `${rel.replace(/[^a-z0-9]+/gi, '-')}-L${b.line}`;
      const file = join(work, `${slug}.${b.lang === 'ts' ? 'mts' : 'mjs'}`);
      writeFileSync(file, `${b.code}\nexport {};\n`);
      for (const s of specifiers(b.code)) if (!workspace.has(s)) linkThirdParty(s);
      blocks.push({ ...b, file });
    }
  }
  expect(n).toBeGreaterThan(0);
  const checked = blocks.filter((b) => b.mode !== 'skip' && b.lang === 'ts');
  typeErrors = new Map(checked.map((b) => [b.file, []]));
  // Both resolutions an application uses: Node's (`nodenext`) and a bundler's.
  const modes = {
    nodenext: { module: 'nodenext', moduleResolution: 'nodenext' },
    bundler: { module: 'esnext', moduleResolution: 'bundler' },
  };
  for (const [mode, resolution] of Object.entries(modes)) {
    if (checked.length === 0) break;
    const config = join(work, `tsconfig.${mode}.json`);
    writeFileSync(
      config,
      JSON.stringify({
        compilerOptions: {
          ...resolution,
          target: 'es2022',
          lib: ['es2023'],
          types: ['node'],
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          isolatedModules: true,
        },
        files: checked.map((b) => basename(b.file)),
      }),
    );
    const tsc = spawnSync(
      process.execPath,
      [require.resolve('typescript/bin/tsc'), '-p', config, '--pretty', 'false'],
      {
        encoding: 'utf8',
        cwd: work,
      },
    );
    for (const line of `${tsc.stdout}${tsc.stderr}`.split('\n')) {
      const m = /^(.*?\.mts)\((\d+),\d+\): (error .*)$/.exec(line);
      if (!m) continue;
      typeErrors.get(join(work, m[1] ?? ''))?.push(`${mode}, line ${m[2]}: ${m[3]}`);
    }
  }
}, 180_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

function run(b: Block, cwd: string): { status: number | null; output: string } {
  const js = join(dirname(b.file), `${basename(b.file).replace(/\.m[tj]s$/, '')}.run.mjs`);
  const out =
    b.lang === 'ts'
      ? ts.transpileModule(readFileSync(b.file, 'utf8'), {
          compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
        }).outputText
      : readFileSync(b.file, 'utf8');
  writeFileSync(js, out);
  const r = spawnSync(process.execPath, [js], {
    cwd,
    encoding: 'utf8',
    timeout: 60_000,
    env: {
      ...process.env,
      // Blocks read the usual variables; the test services stand in for them.
      REDIS_URL: process.env.REDIS_URL ?? process.env.TEST_REDIS_URL,
      NODE_NO_WARNINGS: '1',
      NODE_ENV: 'test',
    },
  });
  return { status: r.status, output: `${r.stdout}\n${r.stderr}`.slice(-4000) };
}

const builtPackages = () =>
  [...workspace].filter(([, dir]) => {
    const pj = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    return !pj.private && !existsSync(join(dir, 'dist'));
  });

describe('README examples', () => {
  it('the workspace packages are built (run `pnpm build` first)', () => {
    expect(builtPackages().map(([name]) => name)).toEqual([]);
  });

  for (const readme of readmes()) {
    const rel = relative(ROOT, readme);
    const excluded = EXCLUDED_READMES[rel];
    const found = extractBlocks(readFileSync(readme, 'utf8'), rel);
    if (found.length === 0) continue;
    describe(rel, () => {
      for (const b of found) {
        const name = `block at line ${b.line} (${b.lang})`;
        if (excluded) {
          it.skip(`${name} — README excluded: ${excluded}`, () => {});
          continue;
        }
        if (b.mode === 'skip') {
          it(`${name} — not executed: ${b.reason || '(no reason given)'}`, () => {
            expect(b.reason, 'a not-executed marker must say why').not.toBe('');
          });
          continue;
        }
        const block = () => blocks.find((x) => x.readme === rel && x.line === b.line) as Block;
        if (b.lang === 'ts') {
          it(`${name} type-checks (nodenext and bundler)`, () => {
            expect(typeErrors.get(block().file)).toEqual([]);
          });
        }
        if (b.mode === 'typecheck') {
          it(`${name} — not run: ${b.reason || '(no reason given)'}`, () => {
            expect(b.reason, 'a typecheck-only marker must say why').not.toBe('');
          });
          continue;
        }
        it(`${name} runs as ESM${b.runTwice ? ' (twice, same directory)' : ''}`, () => {
          const cwd = mkdtempSync(join(work, 'cwd-'));
          for (let k = 0; k < (b.runTwice ? 2 : 1); k++) {
            const r = run(block(), cwd);
            expect(r.status, `run ${k + 1} of ${rel}:${b.line} failed:\n${r.output}`).toBe(0);
          }
        }, 130_000);
      }
    });
  }
});

describe('extractBlocks', () => {
  it('finds ts/js fences (backticks, tildes, indented) with their markers, and ignores other languages', () => {
    const md = [
      '# t',
      '```sh',
      'npm i x',
      '```',
      '<!-- not-executed: a sketch -->',
      '',
      '```ts',
      'sketch(...);',
      '```',
      '- item',
      '  ~~~js',
      '  console.log(1);',
      '  ~~~',
      '<!-- typecheck-only: needs a server -->',
      '<!-- readme-check: run-twice -->',
      '```typescript title="x"',
      'const a: number = 1;',
      '```',
      '<!-- not-executed -->',
      '```ts',
      'x',
      '```',
    ].join('\n');
    const found = extractBlocks(md, 'R.md');
    expect(
      found.map(({ line, lang, mode, reason, runTwice, code }) => ({
        line,
        lang,
        mode,
        reason,
        runTwice,
        code,
      })),
    ).toEqual([
      { line: 7, lang: 'ts', mode: 'skip', reason: 'a sketch', runTwice: false, code: 'sketch(...);' },
      { line: 11, lang: 'js', mode: 'run', reason: '', runTwice: false, code: 'console.log(1);' },
      {
        line: 16,
        lang: 'ts',
        mode: 'typecheck',
        reason: 'needs a server',
        runTwice: true,
        code: 'const a: number = 1;',
      },
      { line: 20, lang: 'ts', mode: 'skip', reason: '', runTwice: false, code: 'x' },
    ]);
  });
});
