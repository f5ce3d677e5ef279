/** OIDC configuration errors name the missing or malformed setting (never `TypeError: Invalid URL`). */
import { describe, expect, it } from 'vitest';
import { OidcClient, type OidcConfig, OidcConfigError } from '../src/index';

const good: OidcConfig = {
  issuer: 'https://login.example.com',
  clientId: 'agentgov',
  clientSecret: 'secret',
  redirectUri: 'https://app.example.com/api/v1/auth/callback',
};

describe('OidcClient configuration', () => {
  it('accepts a complete configuration', () => {
    expect(() => new OidcClient(good)).not.toThrow();
  });

  it.each([
    ['issuer', undefined, /oidc\.issuer is not set.*OIDC_ISSUER/],
    ['issuer', '', /oidc\.issuer is not set/],
    ['issuer', 'undefined', /oidc\.issuer is not a URL: 'undefined'/],
    ['clientId', undefined, /oidc\.clientId is not set.*OIDC_CLIENT_ID/],
    ['clientSecret', undefined, /oidc\.clientSecret is not set/],
    ['redirectUri', 'callback', /oidc\.redirectUri is not a URL/],
  ] as const)('names %s when it is %s', (key, value, message) => {
    const config = { ...good, [key]: value } as OidcConfig;
    let thrown: unknown;
    try {
      new OidcClient(config);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(OidcConfigError);
    expect((thrown as Error).message).toMatch(message);
    expect((thrown as OidcConfigError).setting).toBe(`oidc.${key}`);
  });

  it('names the issuer when there is no oidc configuration at all', () => {
    expect(() => new OidcClient(undefined as unknown as OidcConfig)).toThrow(/oidc\.issuer is not set/);
  });
});
