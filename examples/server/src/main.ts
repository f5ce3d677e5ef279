/**
 * `pnpm start [--config FILE]`: the agentgov reference governance server. Configuration comes
 * from the environment (DESIGN.md's table; see examples/server/README.md) over the configuration
 * file (`--config`, `AGENTGOV_CONFIG` or `./agentgov.yaml`). A failure to start is one line
 * saying what is wrong and what to do (the stack with `--verbose` or `DEBUG=1`); SIGTERM and
 * SIGINT drain in-flight requests, close the stores and exit 0.
 */
import { loadServerSettings } from './config-file';
import { DEV_ACCOUNTS, DEV_ISSUER_NOTE } from './dev-issuer';
import { explain } from './explain';
import { type RunningServer, startServer } from './server';

const verbose = process.argv.includes('--verbose') || /^(1|true|\*|agentgov)/.test(process.env.DEBUG ?? '');

async function main(): Promise<void> {
  // Relative paths (AGENTGOV_DATA_DIR, --config) are relative to where `pnpm start` was typed,
  // not to this package; those in a configuration file, to the file's directory.
  const settings = loadServerSettings(
    process.argv.slice(2),
    process.env,
    process.env.INIT_CWD ?? process.cwd(),
  );
  const { config } = settings;
  env = settings.env;
  const log = env.AGENTGOV_REQUEST_LOG === 'off' ? undefined : batchedStdout();
  // Start-up can take a while (the embedded database's first start): say what it is doing.
  const progress = (step: string) => console.log(`agentgov: ${step}`);
  if (settings.file) progress(`configuration file ${settings.file} (environment variables override it)`);
  const server: RunningServer = await startServer(config, log ? { env, log, progress } : { env, progress });
  running = server;
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
    // Sessions live in Redis, else in the database (kept across restarts), else in the process.
    config.redisUrl
      ? '  rate limits and sessions: Redis'
      : config.database.kind === 'memory'
        ? '  rate limits and sessions: in-process'
        : '  rate limits: in-process; sessions: in the database (kept across restarts)',
    `  decision engine: ${config.opaUrl ? `OPA at ${config.opaUrl}` : 'built-in'}`,
    `  audit checkpoints: ${config.checkpointIntervalSeconds > 0 ? `every ${config.checkpointIntervalSeconds} s when there were appends` : 'off'}`,
    `  OpenAPI: ${api}/openapi.json   status: ${api}/status`,
  ];
  // TLS (docs/deployment.md): who must present a client certificate, and which services get TLS.
  const { listen, opa, database: db, redis } = config.tls;
  if (listen) {
    const who = {
      off: 'not asked for',
      optional: `required on ${listen.internalPaths.join(', ')} (optional elsewhere)`,
      require: 'required on every connection',
    }[listen.clientAuth];
    lines.push(`  HTTPS: client certificates ${who}`);
  }
  const withTls = [opa && 'OPA', db && 'PostgreSQL', redis && 'Redis'].filter(Boolean);
  if (withTls.length > 0) lines.push(`  TLS with your CA and client certificate to: ${withTls.join(', ')}`);
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
      `Development OIDC issuer: ${issuer.issuer} (client ${issuer.clientId}); ${DEV_ISSUER_NOTE}.`,
      'ID tokens valid for 12 hours (they survive restarts with the embedded database):',
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
      `A browser login: open ${api}/auth/login and sign in as any dev account (any password);`,
      `  you land on the console (${server.url}/console/) with a session cookie.`,
    );
    if (server.mcpResource) {
      // The MCP endpoint takes access tokens for its resource (RFC 9068), not ID tokens.
      lines.push(
        '',
        `MCP access tokens for ${server.mcpResource} (12 hours), for an MCP client's Authorization header:`,
      );
      for (const account of DEV_ACCOUNTS)
        lines.push(
          `  ${account.sub.padEnd(6)} ${await issuer.mintAccessToken(account.sub, server.mcpResource, 12 * 3600)}`,
        );
    }
  }
  console.log(lines.join('\n'));

  if (stopRequested) shutdown(server, stopRequested);
}

/**
 * The log's line sink: the lines of one turn of the event loop go to stdout in one write (under
 * load, many requests' lines per write instead of a write and a console call per request), at the
 * end of that turn and, whatever is still pending, when the process exits.
 */
function batchedStdout(): (line: string) => void {
  let pending: string[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    const text = `${pending.join('\n')}\n`;
    pending = [];
    process.stdout.write(text);
  };
  process.on('exit', flush);
  return (line) => {
    if (pending.push(line) === 1) setImmediate(flush);
  };
}

/** The environment the server runs with: process.env over the configuration file's values. */
let env: Record<string, string | undefined> = process.env;
let running: RunningServer | undefined;
let stopRequested: string | undefined;
let stopping = false;
let firstSignalAt = 0;
/**
 * One Ctrl-C under `pnpm start` arrives twice: the terminal signals the whole foreground process
 * group, and pnpm forwards the signal it got to its child as well. A repeat within this window is
 * that echo and is ignored; a later one (a second Ctrl-C) leaves at once.
 */
const SIGNAL_ECHO_MS = 2_000;
function stop(signal: string): void {
  if (stopping || stopRequested) {
    if (Date.now() - firstSignalAt < SIGNAL_ECHO_MS) return;
    if (stopping) {
      // A second signal while draining: leave now.
      console.error(`${signal} again: leaving without finishing the shutdown`);
      process.exit(1);
    }
  }
  firstSignalAt ||= Date.now();
  stopRequested = signal;
  if (!running) {
    console.log(`${signal}: stopping as soon as the start-up completes…`);
    return;
  }
  shutdown(running, signal);
}
function shutdown(server: RunningServer, signal: string): void {
  stopping = true;
  console.log(`${signal}: finishing in-flight requests and shutting down…`);
  server.close().then(
    () => {
      console.log('stopped');
      process.exit(0);
    },
    (error: unknown) => {
      console.error(`agentgov: shutdown failed: ${explain(error, env)}`);
      if (verbose) console.error(error);
      process.exit(1);
    },
  );
}
// Registered before anything starts: a signal during start-up is honoured once it completes.
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));

main().catch((error: unknown) => {
  console.error(`agentgov: ${explain(error, env)}`);
  if (verbose) console.error(error);
  else console.error('  (details: run again with --verbose or DEBUG=1)');
  process.exit(1);
});
