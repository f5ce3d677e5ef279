import { afterAll } from 'vitest';
import { describeSqlStoresConformance } from './conformance';
import { closePGlite, describePGlite, pgliteStores } from './helpers';

afterAll(closePGlite);

describePGlite('kysely/pglite conformance', () => {
  describeSqlStoresConformance('kysely/pglite', () => pgliteStores());
});
