import type { Options } from 'tsup';

/** Shared tsup settings: ESM + CJS + declarations for every entry, built against dist of siblings. */
export function packageConfig(entry: Record<string, string>, extra: Partial<Options> = {}): Options {
  return {
    entry,
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node20',
    ...extra,
  };
}
