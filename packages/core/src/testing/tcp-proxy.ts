/**
 * A TCP proxy a test controls, to take a backing service (PostgreSQL, Redis) away from a server
 * without touching the shared service itself: `cut()` drops every open (or held) connection and
 * closes new ones as soon as they are accepted, `restore()` lets connections through again. Started with `{ hold: true }`, it accepts new
 * connections but holds them back (no byte reaches the target) until `restore()`.
 */
import net from 'node:net';

export interface TcpProxy {
  /** `host:port` to connect to instead of the target. */
  readonly address: string;
  readonly port: number;
  cut(): void;
  /** Lets connections through again, the held ones included. */
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(
  targetHost: string,
  targetPort: number,
  options: { hold?: boolean } = {},
): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const held: net.Socket[] = [];
  let mode: 'hold' | 'pass' | 'cut' = options.hold ? 'hold' : 'pass';
  const pipe = (client: net.Socket) => {
    const upstream = net.connect(targetPort, targetHost);
    sockets.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  };
  const server = net.createServer((client) => {
    if (mode === 'cut') client.destroy();
    else if (mode === 'hold') {
      client.on('error', () => {});
      held.push(client);
    } else pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    address: `127.0.0.1:${port}`,
    port,
    cut() {
      mode = 'cut';
      for (const s of [...sockets, ...held.splice(0)]) s.destroy();
      sockets.clear();
    },
    restore() {
      mode = 'pass';
      for (const c of held.splice(0)) pipe(c);
    },
    close: () =>
      new Promise<void>((resolve) => {
        mode = 'cut';
        for (const s of [...sockets, ...held.splice(0)]) s.destroy();
        server.close(() => resolve());
      }),
  };
}
