/**
 * `@agentgov/gateway/testing`: a real OIDC provider on loopback (oidc-provider), a kernel on
 * in-memory stores, and `listen` for real servers on port 0. The HTTP conformance suite of the
 * whole service (kernel + domain plugins) is the private `@agentgov/http-suite` package.
 */

export { createTestPki, type TestAuthority, type TestKeyPair, type TestPki } from './certificates';
export { startTestIssuer, type TestAccount, type TestIssuer } from './oidc-issuer';
export {
  createTestGovernance,
  listen,
  OFFLINE_ISSUER,
  type ServerFactory,
  type StartedServer,
  testOidcConfig,
} from './servers';
export { type SignedIn, signIn } from './sign-in';
