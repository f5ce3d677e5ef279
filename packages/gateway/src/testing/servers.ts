import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGovernance, type Governance, type GovernanceConfig } from '../governance';
import { createMemoryDependencies } from '../memory';
import type { StartedServer } from './http-suite';
import type { TestIssuer } from './oidc-issuer';

/** Serves `listener` on a real HTTP server at 127.0.0.1, port 0. */
export async function listen(listener: RequestListener): Promise<StartedServer> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A governance on in-memory stores that trusts the test issuer; `over` replaces any part. */
export async function createTestGovernance(
  idp: TestIssuer,
  over: Partial<GovernanceConfig> = {},
): Promise<Governance> {
  return createGovernance({
    ...(await createMemoryDependencies()),
    oidc: {
      issuer: idp.issuer,
      clientId: idp.clientId,
      clientSecret: idp.clientSecret,
      redirectUri: idp.redirectUri,
    },
    ...over,
  });
}
