/**
 * `build:cache` (run by `pnpm build`, so by `pnpm install`): makes the PGlite template the first
 * start's empty data directory is loaded from (./pglite-template.ts), so that even the first
 * `pnpm start` runs no initdb; a template already there is checked and kept. Prints what it did.
 */
import { existsSync, readdirSync } from 'node:fs';
import { preparePGliteTemplate } from '@agentgov/store-kysely';
import { PGLITE_TEMPLATE_DIR } from './pglite-template';

const before = existsSync(PGLITE_TEMPLATE_DIR) ? readdirSync(PGLITE_TEMPLATE_DIR) : [];
if (await preparePGliteTemplate(PGLITE_TEMPLATE_DIR)) {
  const made = readdirSync(PGLITE_TEMPLATE_DIR).filter((f) => !before.includes(f));
  console.log(made.length > 0 ? `PGlite template made (${made.join(', ')})` : 'PGlite template up to date');
} else {
  console.log('PGlite templates are not used here');
}
