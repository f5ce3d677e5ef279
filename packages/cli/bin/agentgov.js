#!/usr/bin/env node
// Thin launcher so the bin exists before the first build; the CLI itself is dist/main.js.
import('../dist/main.js').catch((error) => {
  console.error(error);
  process.exit(2);
});
