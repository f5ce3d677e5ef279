import { describeSqlStoresConformance } from './conformance';
import { describePostgres, postgresStores } from './helpers';

await describePostgres('kysely/postgres conformance', (url) => {
  describeSqlStoresConformance('kysely/postgres', () => postgresStores(url));
});
