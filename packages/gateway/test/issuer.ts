/**
 * The test OIDC issuer of a gateway test file: started once when the file loads, closed after all
 * its tests (`const idp = await fileIssuer();` at the top level of the file).
 */
import { afterAll } from 'vitest';
import { startTestIssuer, type TestIssuer } from '../src/testing/index';

export async function fileIssuer(): Promise<TestIssuer> {
  const idp = await startTestIssuer();
  afterAll(async () => {
    await idp.close();
  });
  return idp;
}

/** Alice, an `enterprise_admin` of `acme` in `eng`: the claims of the sign-in tests. */
export const ALICE = {
  sub: 'alice',
  email: 'alice@acme.example',
  roles: ['enterprise_admin'],
  tenant_id: 'acme',
  org_unit: 'eng',
};
