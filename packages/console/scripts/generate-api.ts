/** Writes app/src/api/schema.d.ts from the reference server's current OpenAPI document. */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SCHEMA_FILE, schemaSource, serverDocument } from '../test/server-document';

const source = await schemaSource(await serverDocument());
await mkdir(path.dirname(SCHEMA_FILE), { recursive: true });
await writeFile(SCHEMA_FILE, source);
console.log(`wrote ${SCHEMA_FILE} (${source.length} bytes)`);
process.exit(0);
