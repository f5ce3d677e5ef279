import { DEV_OIDC_CLIENT } from '@agentgov/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config';
import { EVERY_VARIABLE } from './contract-env';

describe('reference server configuration', () => {
  it('defaults to PGlite in ./.agentgov, express, 127.0.0.1:8080 and the development issuer', () => {
    const c = loadConfig({}, '/srv');
    expect(c).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      framework: 'express',
      database: { kind: 'pglite', dataDir: '/srv/.agentgov' },
      redisUrl: undefined,
      opaUrl: undefined,
      oidc: {
        issuer: undefined,
        clientId: DEV_OIDC_CLIENT.clientId,
        redirectUri: 'http://127.0.0.1:8080/api/v1/auth/callback',
        scope: undefined,
      },
      secrets: 'env',
      checkpointIntervalSeconds: 60,
    });
  });

  it('reads every variable of the contract', () => {
    const c = loadConfig(EVERY_VARIABLE, '/srv');
    expect(c).toEqual({
      port: 9000,
      host: '0.0.0.0',
      framework: 'koa',
      database: { kind: 'postgres', url: 'postgres://u@db:5432/gov' },
      redisUrl: 'redis://cache:6379',
      opaUrl: 'http://opa:8181',
      oidc: {
        issuer: 'https://idp.example',
        clientId: 'gov',
        clientSecret: 's3cret',
        redirectUri: 'https://gov.example/callback',
        scope: 'openid email groups',
      },
      secrets: 'env',
      checkpointIntervalSeconds: 300,
      logLevel: 'warn',
      metricsToken: 'scraper-token-0123456789',
      trustProxy: 1,
      forwardedHeader: 'forwarded',
      secureCookies: true,
      // No TLS variables: plain HTTP, no TLS to the services (tls.test.ts has them).
      tls: { listen: undefined, opa: undefined, database: undefined, redis: undefined },
      connectorEgress: { mode: 'public', allow: ['10.20.0.0/16', 'fd00:1::/64'] },
      secretOwners: { acme: ['acme-jira', 'acme-hook'], globex: ['globex-token'] },
    });
  });

  it('refuses a Prometheus scraper token under 16 characters and an unknown log level', () => {
    expect(() => loadConfig({ AGENTGOV_METRICS_TOKEN: 'short' })).toThrow(/AGENTGOV_METRICS_TOKEN/);
    expect(() => loadConfig({ AGENTGOV_LOG_LEVEL: 'loud' })).toThrow(/AGENTGOV_LOG_LEVEL/);
    expect(loadConfig({}).logLevel).toBe('info');
  });

  it('points the default redirect URI at the callback route a browser can reach', () => {
    expect(loadConfig({ HOST: '0.0.0.0', PORT: '9000' }).oidc.redirectUri).toBe(
      'http://127.0.0.1:9000/api/v1/auth/callback',
    );
    expect(loadConfig({ PORT: '0' }).oidc.redirectUri).toBeUndefined();
  });

  it('understands memory: and AGENTGOV_DATA_DIR', () => {
    expect(loadConfig({ DATABASE_URL: 'memory:' }).database).toEqual({ kind: 'memory' });
    expect(loadConfig({ AGENTGOV_DATA_DIR: 'data/gov' }, '/srv').database).toEqual({
      kind: 'pglite',
      dataDir: '/srv/data/gov',
    });
  });

  it.each([
    [{ PORT: 'eighty' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ AGENTGOV_FRAMEWORK: 'fastify' }, /AGENTGOV_FRAMEWORK/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
    [{ OPA_URL: 'not a url' }, /OPA_URL/],
    [{ OIDC_ISSUER: 'https://idp.example' }, /OIDC_CLIENT_ID/],
    [{ AGENTGOV_SECRETS: 'vault' }, /AGENTGOV_SECRETS/],
    [
      { OIDC_ISSUER: 'http://idp.example', OIDC_CLIENT_ID: 'a', OIDC_CLIENT_SECRET: 'b' },
      /^invalid configuration: OIDC_ISSUER="http:\/\/idp\.example": expected an https:\/\/ URL \(http:\/\/ only for an issuer on loopback/,
    ],
    [
      { REDIS_URL: 'http://u:pw@cache:6379' },
      /^invalid configuration: REDIS_URL="http:\/\/u:\*\*\*@cache:6379": expected redis:\/\/… or rediss:\/\/…/,
    ],
  ])('rejects %j with a ConfigError naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('never throws anything but ConfigError, whatever the environment (property)', () => {
    const keys = fc.constantFrom(
      'PORT',
      'HOST',
      'AGENTGOV_FRAMEWORK',
      'DATABASE_URL',
      'REDIS_URL',
      'OPA_URL',
      'OIDC_ISSUER',
    );
    fc.assert(
      fc.property(fc.dictionary(keys, fc.string()), (env) => {
        try {
          const c = loadConfig(env);
          expect(c.port).toBeGreaterThanOrEqual(0);
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigError);
        }
      }),
    );
  });
});

describe('configuration errors name the variable, the value and the form expected', () => {
  it('PORT=abc', () => {
    expect(() => loadConfig({ PORT: 'abc' })).toThrow(
      new ConfigError(
        'invalid configuration: PORT="abc": expected a port number from 0 to 65535 (0: any free port)',
      ),
    );
    expect(() => loadConfig({ PORT: '70000' })).toThrow(
      /PORT="70000": expected a port number from 0 to 65535/,
    );
    expect(() => loadConfig({ PORT: '-1' })).toThrow(/PORT="-1": expected a port number/);
    expect(loadConfig({ PORT: '0' }).port).toBe(0);
  });

  it('AGENTGOV_CHECKPOINT_INTERVAL takes seconds or a duration (500ms, 30s, 1m, 1h)', () => {
    const interval = (v: string) => loadConfig({ AGENTGOV_CHECKPOINT_INTERVAL: v }).checkpointIntervalSeconds;
    expect(interval('90')).toBe(90);
    expect(interval('1m')).toBe(60);
    expect(interval('30s')).toBe(30);
    expect(interval('500ms')).toBe(0.5);
    expect(interval('1h')).toBe(3600);
    expect(interval('0')).toBe(0);
    expect(() => loadConfig({ AGENTGOV_CHECKPOINT_INTERVAL: 'soon' })).toThrow(
      new ConfigError(
        'invalid configuration: AGENTGOV_CHECKPOINT_INTERVAL="soon": expected seconds (60) or a duration such as 500ms, 30s, 1m or 1h, at most 24h; 0: off',
      ),
    );
    expect(() => loadConfig({ AGENTGOV_CHECKPOINT_INTERVAL: '25h' })).toThrow(
      /AGENTGOV_CHECKPOINT_INTERVAL="25h": expected seconds/,
    );
  });

  it('shows other values too, but never a secret and never a password in a URL', () => {
    expect(() => loadConfig({ AGENTGOV_FRAMEWORK: 'fastify' })).toThrow(
      /AGENTGOV_FRAMEWORK="fastify": .*expected one of "express"\|"koa"/,
    );
    let message = '';
    try {
      loadConfig({ AGENTGOV_METRICS_TOKEN: 'hunter2', OPA_URL: 'http://user:pa55word@opa host' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('AGENTGOV_METRICS_TOKEN=(7 characters, not shown)');
    // A store's name and secret references are no secrets: shown.
    expect(() => loadConfig({ AGENTGOV_SECRETS: 'vault' })).toThrow(/AGENTGOV_SECRETS="vault": /);
    expect(() => loadConfig({ AGENTGOV_SECRET_OWNERS: 'acme' })).toThrow(/AGENTGOV_SECRET_OWNERS="acme": /);
    expect(() => loadConfig({ OIDC_CLIENT_SECRET: 's3cret', OIDC_ISSUER: 'nope' })).toThrow(
      /OIDC_ISSUER="nope": /,
    );
    expect(message).toContain('OPA_URL="http://user:***@opa host"');
    expect(message).not.toMatch(/hunter2|pa55word/);
  });
});

describe('AGENTGOV_SECURE_COOKIES', () => {
  it("keeps the spec's `session` cookie unless set to 1, even with an https redirect URI", () => {
    expect(loadConfig({ OIDC_REDIRECT_URI: 'https://gov.example/callback' }).secureCookies).toBe(false);
    expect(loadConfig({ AGENTGOV_SECURE_COOKIES: '1' }).secureCookies).toBe(true);
    expect(() => loadConfig({ AGENTGOV_SECURE_COOKIES: 'yes' })).toThrow(/AGENTGOV_SECURE_COOKIES/);
  });
});

describe('AGENTGOV_TRUST_PROXY', () => {
  it('is off by default; reads true, a hop count or a list; refuses anything else', () => {
    expect(loadConfig({}, '/srv')).toMatchObject({
      trustProxy: undefined,
      forwardedHeader: 'x-forwarded-for',
    });
    expect(loadConfig({ AGENTGOV_TRUST_PROXY: 'false' }, '/srv').trustProxy).toBeUndefined();
    expect(loadConfig({ AGENTGOV_TRUST_PROXY: 'true' }, '/srv').trustProxy).toBe(true);
    expect(loadConfig({ AGENTGOV_TRUST_PROXY: '2' }, '/srv').trustProxy).toBe(2);
    expect(loadConfig({ AGENTGOV_TRUST_PROXY: 'loopback, 10.0.0.0/8' }, '/srv').trustProxy).toBe(
      'loopback, 10.0.0.0/8',
    );
    expect(
      loadConfig({ AGENTGOV_TRUST_PROXY: 'loopback', AGENTGOV_FORWARDED_HEADER: 'forwarded' }, '/srv')
        .forwardedHeader,
    ).toBe('forwarded');
    expect(() => loadConfig({ AGENTGOV_TRUST_PROXY: 'everyone!' }, '/srv')).toThrow(ConfigError);
    expect(() => loadConfig({ AGENTGOV_FORWARDED_HEADER: 'x-real-ip' }, '/srv')).toThrow(ConfigError);
  });
});
