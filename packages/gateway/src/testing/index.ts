export { ACCOUNTS, describeHttpSuite, type ServerFactory, type StartedServer } from './http-suite';
export { startTestIssuer, type TestAccount, type TestIssuer } from './oidc-issuer';
export { createTestGovernance, listen } from './servers';
