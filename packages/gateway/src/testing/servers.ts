import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemoryAuditSink, InMemoryOrgDirectory, InMemorySecretStore } from '@agentgov/core';
import type { OidcConfig } from '../auth/oidc';
import { createGovernance, type Governance, type GovernanceConfig } from '../kernel';
import { createMemoryStores } from '../memory';
import type { TestIssuer } from './oidc-issuer';

export interface StartedServer {
  /** Origin of the server, e.g. `http://127.0.0.1:53211`. */
  url: string;
  close(): Promise<void>;
}

/** Starts `governance` behind the adapter under test on 127.0.0.1 port 0. */
export type ServerFactory = (governance: Governance) => Promise<StartedServer>;

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

/** The OIDC settings of a client of the test issuer. */
export function testOidcConfig(
  idp: Pick<TestIssuer, 'issuer' | 'clientId' | 'clientSecret' | 'redirectUri'>,
): OidcConfig {
  return {
    issuer: idp.issuer,
    clientId: idp.clientId,
    clientSecret: idp.clientSecret,
    redirectUri: idp.redirectUri,
  };
}

/**
 * OIDC settings for a kernel whose tests never sign anyone in through the issuer (they give
 * their own principal or only call anonymous routes): nothing is ever fetched from it.
 */
export const OFFLINE_ISSUER: Readonly<
  Pick<TestIssuer, 'issuer' | 'clientId' | 'clientSecret' | 'redirectUri'>
> = Object.freeze({
  issuer: 'https://idp.example',
  clientId: 'c',
  clientSecret: 's',
  redirectUri: 'https://gov.example/cb',
});

/**
 * A kernel on in-memory stores that trusts the test issuer (or `OFFLINE_ISSUER`); `over` replaces
 * any part (add `plugins` to serve domains). Its audit sink is an InMemoryAuditSink (`entries` to
 * inspect).
 */
export function createTestGovernance(
  idp: Pick<TestIssuer, 'issuer' | 'clientId' | 'clientSecret' | 'redirectUri'>,
  over: Partial<GovernanceConfig> = {},
): Governance {
  return createGovernance({
    stores: createMemoryStores(),
    directory: new InMemoryOrgDirectory(),
    secrets: new InMemorySecretStore(),
    audit: new InMemoryAuditSink(),
    oidc: testOidcConfig(idp),
    ...over,
  });
}
