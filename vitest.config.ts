import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const pkg = (p: string) => fileURLToPath(new URL(`./packages/${p}`, import.meta.url));

export default defineConfig({
  resolve: {
    // Tests run against sources, not dist: the same mapping as tsconfig.json's `paths`.
    alias: [
      // `@agentgov/<pkg>/<subpath>` → packages/<pkg>/src/<subpath>/index.ts (testing, gateway, a2a…)
      { find: /^@agentgov\/([a-z-]+)\/([a-z0-9-]+)$/, replacement: pkg('$1/src/$2/index.ts') },
      { find: /^@agentgov\/([a-z-]+)$/, replacement: pkg('$1/src/index.ts') },
    ],
  },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'examples/*/test/**/*.test.ts', 'scripts/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});
