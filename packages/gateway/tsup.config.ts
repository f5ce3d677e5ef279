import { defineConfig } from 'tsup';
import { packageConfig } from '../../tsup.base';

export default defineConfig(
  packageConfig({
    index: 'src/index.ts',
    testing: 'src/testing/index.ts',
    observability: 'src/observability/index.ts',
    otel: 'src/otel/index.ts',
  }),
);
