/**
 * Start-up failures in one line: what is wrong and what to do (main.ts prints the stack only
 * with `--verbose` or `DEBUG=1`).
 */
import { ConfigError } from './config';
import { DataDirInUseError } from './data-lock';

/** What went wrong at start-up, in one line, with what to do about it. */
export function explain(error: unknown, env: Record<string, string | undefined>): string {
  const e = error as NodeJS.ErrnoException & { errors?: unknown[] };
  const code = e?.code ?? (e?.errors?.[0] as NodeJS.ErrnoException | undefined)?.code;
  if (error instanceof ConfigError || error instanceof DataDirInUseError) return error.message;
  if (code === 'EADDRINUSE') {
    return `port ${env.PORT ?? '8080'} on ${env.HOST ?? '127.0.0.1'} is already in use; stop what holds it or set PORT to another port`;
  }
  if (code === 'EACCES' && e.syscall === 'listen') {
    return `not allowed to listen on port ${env.PORT ?? '8080'}; use a port above 1023 (PORT=8080)`;
  }
  // TLS to a backing service refused (docs/deployment.md): a certificate the CA did not sign, a
  // name that does not match, a client certificate the service refused.
  if (
    /^(ERR_TLS_|ERR_SSL_|UNABLE_TO_|SELF_SIGNED|CERT_|DEPTH_ZERO)/.test(code ?? '') ||
    /altnames|alert (certificate required|unknown ca|bad certificate)/i.test(String(e?.message))
  ) {
    return `TLS handshake refused (${code ?? e.message}): check the *_TLS_CA, *_TLS_SERVERNAME, *_TLS_CERT and *_TLS_KEY variables of that service (docs/deployment.md)`;
  }
  if (env.REDIS_URL && /max retries per request/i.test(String(e?.message))) {
    const tls = env.REDIS_URL.startsWith('rediss:') ? ' and REDIS_TLS_*' : '';
    const sessions = env.DATABASE_URL === 'memory:' ? 'in-process' : 'in the database';
    return `cannot reach Redis at ${redact(env.REDIS_URL)}; start Redis, or fix REDIS_URL${tls} (unset it: rate limits in-process, sessions ${sessions})`;
  }
  if (
    env.DATABASE_URL?.startsWith('postgres') &&
    (['ECONNREFUSED', 'ENOTFOUND', 'ETIMEDOUT', 'EAI_AGAIN', 'ECONNRESET', '28P01', '3D000'].includes(
      code ?? '',
    ) ||
      /connect|password|database .* does not exist/i.test(String(e?.message)))
  ) {
    const where = redact(env.DATABASE_URL);
    return `cannot reach the database at ${where} (${code ?? e.message}); start PostgreSQL, or fix DATABASE_URL (unset it for the embedded database)`;
  }
  if (/secret/i.test(String(e?.message))) {
    return `${e.message}; set it as AGENTGOV_SECRET_<REF> in the environment (see examples/server/README.md)`;
  }
  if (e?.name === 'OidcConfigError') return e.message;
  return `${e?.message ?? String(error)}`;
}

/** A connection URL without its password. */
function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}
