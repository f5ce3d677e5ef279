/**
 * The chart library inlined into the HTML report: Chart.js's UMD build, read from the installed
 * package, so the report is one file that works offline (no CDN, no network at view time).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface ChartLibrary {
  name: string;
  version: string;
  license: string;
  /** The script, safe to place inside `<script>…</script>`. */
  source: string;
}

export function loadChartLibrary(): ChartLibrary {
  const require = createRequire(import.meta.url);
  // `chart.js` resolves to dist/chart.cjs; the UMD build (a global `Chart`) sits next to it.
  const dist = dirname(require.resolve('chart.js'));
  const pkg = JSON.parse(readFileSync(join(dist, '..', 'package.json'), 'utf8')) as {
    version: string;
    license: string;
  };
  const source = readFileSync(join(dist, 'chart.umd.min.js'), 'utf8')
    .replace(/\n\/\/# sourceMappingURL=.*$/m, '') // the map is not shipped with the report
    .replace(/<\/(script)/gi, '<\\/$1');
  return { name: 'Chart.js', version: pkg.version, license: pkg.license, source };
}
