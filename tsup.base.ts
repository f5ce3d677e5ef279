import type { Options } from 'tsup';

/**
 * Dependencies that ship only ES modules. The CommonJS build bundles them, so every `require`
 * entry point loads without require(esm) — under Jest 29 and other require()-only runtimes, and
 * with `--no-experimental-require-module` (scripts/entry-points.test.ts checks each one). The ESM
 * build keeps them external.
 */
const ESM_ONLY = ['jose', 'oauth4webapi'];

/**
 * Shared tsup settings: the JavaScript of every entry, ESM and CJS. Declarations are not built
 * here but once for the whole workspace (scripts/build.mjs), which also cleans `dist`. Source maps
 * point at the sources without embedding them (`sourcesContent: false`): the published tarballs
 * stay small, and a debugger in a checkout still finds the files.
 */
export function packageConfig(entry: Record<string, string>, extra: Partial<Options> = {}): Options[] {
  const common: Options = {
    entry,
    dts: false,
    sourcemap: true,
    clean: false,
    target: 'node20',
    esbuildOptions(options) {
      options.sourcesContent = false;
    },
    ...extra,
  };
  return [
    { ...common, format: ['esm'] },
    { ...common, format: ['cjs'], noExternal: ESM_ONLY },
  ];
}
