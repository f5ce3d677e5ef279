/**
 * The server's first step: binding PORT on HOST. A host it cannot listen on is a ConfigError
 * naming HOST, its value and what to set instead (a taken port or a privileged one: ./explain.ts).
 */
import type { Server } from 'node:net';
import { ConfigError } from './config';

const CHOOSE =
  'set HOST to an address of this machine: 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)';

/** Listens on `port` and `host`; resolves once bound. */
export async function listen(server: Server, port: number, host: string): Promise<void> {
  server.listen(port, host);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
  } catch (error) {
    throw hostError(error as NodeJS.ErrnoException, host) ?? error;
  }
}

/** The failure to listen on HOST in words, or undefined when HOST is not the problem. */
function hostError(error: NodeJS.ErrnoException, host: string): ConfigError | undefined {
  const code = error.code ?? '';
  const value = JSON.stringify(host);
  if (['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL'].includes(code)) {
    return new ConfigError(
      `cannot listen on HOST=${value}: no such address or host name (${code}); ${CHOOSE}, or a host name that resolves to one`,
    );
  }
  if (code === 'EADDRNOTAVAIL') {
    return new ConfigError(
      `cannot listen on HOST=${value}: not an address of this machine (${code}); ${CHOOSE}`,
    );
  }
  return undefined;
}
