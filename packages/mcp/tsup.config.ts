import { defineConfig } from 'tsup';
import { packageConfig } from '../../tsup.base';

export default defineConfig(packageConfig({ index: 'src/index.ts', gateway: 'src/gateway/index.ts' }));
