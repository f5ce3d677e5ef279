// Fails (exit 1) with a message naming the service when PostgreSQL or Redis does not answer.
// Used by .ci/run before the tests, so a missing service is a failure, never a silent skip.
import { createRequire } from 'node:module';
import net from 'node:net';

const require = createRequire(new URL('../packages/store-kysely/package.json', import.meta.url));
const { Client } = require('pg');

async function checkPostgres(url) {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  await client.query('select 1');
  await client.end();
}

function checkRedis(url) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port || 6379) });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('timed out'));
    }, 5000);
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) => {
      clearTimeout(timer);
      socket.end();
      data.toString().startsWith('+PONG') ? resolve() : reject(new Error(`unexpected reply ${data}`));
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

const checks = [
  ['PostgreSQL', 'TEST_DATABASE_URL', checkPostgres],
  ['Redis', 'TEST_REDIS_URL', checkRedis],
];
let failed = false;
for (const [name, variable, check] of checks) {
  const url = process.env[variable];
  if (!url) {
    console.error(`${name}: ${variable} is not set`);
    failed = true;
    continue;
  }
  try {
    await check(url);
    console.log(`${name}: ok (${url})`);
  } catch (error) {
    console.error(`${name} does not answer at ${url}: ${error.message}`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
