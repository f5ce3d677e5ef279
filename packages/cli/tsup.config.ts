import { defineConfig } from 'tsup';
import { packageConfig } from '../../tsup.base';

// `main` is the executable behind bin/agentgov.js; `index` exports `run()` for embedding and tests.
export default defineConfig(packageConfig({ index: 'src/index.ts', main: 'src/main.ts' }));
