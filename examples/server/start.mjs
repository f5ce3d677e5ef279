#!/usr/bin/env node
/**
 * `pnpm start` (the root's and this package's): the reference server, from its build when the
 * build is current, else from the sources.
 *
 * `pnpm install` builds the workspace (scripts/build.mjs): the server's dist/main.js and every
 * workspace package's dist. When each of those is the build of the files as they are now (their
 * content hashes match the build's stamps: ../../scripts/build-stamps.mjs), dist/main.js runs —
 * plain Node, nothing transformed at start-up. Otherwise (a source edited since the last build, or
 * no build) the sources run through tsx, as `node --import tsx src/main.ts` would, after a line
 * saying so; `pnpm build` makes the next start fast again. Arguments (`--config FILE`,
 * `--verbose`) and signals reach main.ts unchanged: it runs in this process.
 */
import { isBuilt } from '../../scripts/build-stamps.mjs';

let built = false;
try {
  built = isBuilt('@agentgov/example-server');
} catch {
  // an unreadable stamp or file: run the sources
}
if (built) {
  await import('./dist/main.js');
} else {
  console.log(
    'agentgov: running the sources through tsx (the build is missing or older than the sources; `pnpm build` makes the start faster)',
  );
  const { register } = await import('tsx/esm/api');
  register();
  await import('./src/main.ts');
}
