import { readFileSync } from 'node:fs';
import { defineConfig } from 'tsup';
import { packageConfig } from '../../tsup.base';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as {
  version: string;
};

// `main` is the executable behind bin/agentgov.js; `index` exports `run()` for embedding and tests.
export default defineConfig(
  packageConfig(
    { index: 'src/index.ts', main: 'src/main.ts' },
    { define: { __AGENTGOV_CLI_VERSION__: JSON.stringify(version) } },
  ),
);
