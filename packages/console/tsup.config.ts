import { defineConfig } from 'tsup';
import { packageConfig } from '../../tsup.base';

// `vite build` has already written the app to dist/app: tsup must not clean dist.
export default defineConfig(
  packageConfig({ gateway: 'src/gateway/index.ts' }, { clean: false, shims: true }),
);
