/**
 * Where the reference server keeps the PGlite template an empty data directory starts from
 * (`openStore`'s `pgliteTemplateDir`): examples/server/node_modules/.cache/agentgov-pglite — the
 * same directory from src/ (tsx, tests) and dist/ (the build).
 */
import { fileURLToPath } from 'node:url';

export const PGLITE_TEMPLATE_DIR = fileURLToPath(
  new URL('../node_modules/.cache/agentgov-pglite/', import.meta.url),
);
