/**
 * `pnpm start`: the agentgov reference governance server. Configuration comes from the
 * environment (DESIGN.md's table; see examples/server/README.md).
 */
import { ConfigError, loadConfig } from './config';
import { DEV_ACCOUNTS } from './dev-issuer';
import { type RunningServer, startServer } from './server';

async function main(): Promise<void> {
  // Relative paths (AGENTGOV_DATA_DIR) are relative to where `pnpm start` was typed, not to this package.
  const config = loadConfig(process.env, process.env.INIT_CWD ?? process.cwd());
  const server: RunningServer = await startServer(config);
  const api = `${server.url}/api/v1`;
  const database =
    config.database.kind === 'pglite'
      ? `embedded PGlite in ${config.database.dataDir}`
      : config.database.kind === 'postgres'
        ? 'PostgreSQL'
        : 'memory (nothing is kept)';
  const lines = [
    `agentgov reference server listening on ${server.url} (${config.framework})`,
    `  database: ${database}`,
    `  rate limits and sessions: ${config.redisUrl ? 'Redis' : 'in-process'}`,
    `  decision engine: ${config.opaUrl ? `OPA at ${config.opaUrl}` : 'built-in'}`,
    `  OpenAPI: ${api}/openapi.json   status: ${api}/status`,
  ];
  if (server.generatedSecrets.length > 0) {
    lines.push(
      `  audit keys: generated for development and kept in the database (${server.generatedSecrets.join(', ')});`,
      '    set AGENTGOV_SECRET_AUDIT_COMMITMENT_KEY and AGENTGOV_SECRET_AUDIT_SIGNING_KEY in production.',
    );
  }
  if (server.devIssuer) {
    const issuer = server.devIssuer;
    lines.push(
      '',
      `Development OIDC issuer: ${issuer.issuer} (client ${issuer.clientId}); ID tokens valid for 12 hours:`,
    );
    for (const account of DEV_ACCOUNTS) {
      lines.push(
        `  ${account.sub.padEnd(6)} ${account.roles.join(',').padEnd(17)} ${await issuer.mintIdToken(account.sub)}`,
      );
    }
    const alice = await issuer.mintIdToken('alice');
    lines.push(
      '',
      'Try it:',
      `  TOKEN=${alice}`,
      `  curl -s -H "Authorization: Bearer $TOKEN" ${api}/auth/userinfo`,
      `  curl -s -X POST -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' ${api}/policies \\`,
      `    -d '{"scope":"enterprise","scopeId":"acme","domain":"agent-to-agent","name":"a2a baseline","version":"1.0.0","changeReason":"first policy","content":"enabled: true\\nmax_classification_shared: internal\\nmax_rounds:\\n  information_query: 3\\n"}'`,
      `  curl -s -H "Authorization: Bearer $TOKEN" '${api}/audit?page_size=5'`,
      '',
      `A browser login: open ${api}/auth/login and sign in as any dev account (any password).`,
    );
  }
  console.log(lines.join('\n'));

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: finishing in-flight requests and shutting down…`);
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? `agentgov: ${error.message}` : error);
  process.exit(1);
});
