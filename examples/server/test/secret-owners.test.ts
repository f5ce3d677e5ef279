/** biome-ignore-all lint/suspicious/noExplicitAny: JSON bodies of the API are read without schemas */
/**
 * AGENTGOV_SECRET_OWNERS: secret references the operator gives each tenant before any connector
 * names them. Without it a reference nobody named yet goes to the first tenant that names it (found
 * in review); with it, another tenant's connector naming one never resolves it, and a reference
 * already held by another tenant stops the start with a message saying so.
 */
import { startTestIssuer, type TestIssuer } from '@agentgov/gateway/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config';
import { type RunningServer, startServer } from '../src/server';

let idp: TestIssuer;
let server: RunningServer;
const env = { AGENTGOV_SECRET_ACME_JIRA: 'acme-jira-token' };
const configOf = (owners: string) =>
  loadConfig({
    DATABASE_URL: 'memory:',
    PORT: '0',
    OIDC_ISSUER: idp.issuer,
    OIDC_CLIENT_ID: idp.clientId,
    OIDC_CLIENT_SECRET: idp.clientSecret,
    AGENTGOV_SECRET_OWNERS: owners,
  });

beforeAll(async () => {
  idp = await startTestIssuer();
  server = await startServer(configOf('acme=acme-jira,acme-hook;globex=globex-token'), { env });
});
afterAll(async () => {
  await server?.close();
  await idp?.close();
});

const adminOf = (tenant: string) =>
  idp.signIdToken({ sub: `ea-${tenant}`, roles: ['enterprise_admin'], tenant_id: tenant, org_unit: 'hq' });
const call = async (tenant: string, path: string, body?: unknown) => {
  const res = await fetch(`${server.url}/api/v1${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${await adminOf(tenant)}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as any };
};

describe('AGENTGOV_SECRET_OWNERS', () => {
  it('a reference given to acme resolves for acme only, although globex’s connector named it first', async () => {
    const stolen = await call('globex', '/connectors', {
      type: 'mail',
      credentials_secret_ref: 'acme-jira',
      config: { name: 'stolen' },
    });
    expect(stolen.status).toBe(201);
    const theirs = await call('globex', '/status');
    expect(theirs.body.components.connectors.stolen.status).toBe('unhealthy');
    const own = await call('acme', '/connectors', {
      type: 'mail',
      credentials_secret_ref: 'acme-jira',
      config: { name: 'jira' },
    });
    expect(own.status).toBe(201);
    expect((await call('acme', '/status')).body.components.connectors.jira.status).toBe('healthy');
  });

  it('is checked when read (tenant=ref,ref;…), and a reference another tenant already holds stops the start', async () => {
    expect(() => configOf('acme')).toThrow(ConfigError);
    expect(() => configOf('=x')).toThrow(/AGENTGOV_SECRET_OWNERS/);
    expect(configOf(' acme = a , b ; globex=c ;').secretOwners).toEqual({ acme: ['a', 'b'], globex: ['c'] });
    // Two tenants given one reference: the second cannot hold it.
    await expect(startServer(configOf('acme=shared;globex=shared'), { env })).rejects.toThrow(
      /AGENTGOV_SECRET_OWNERS: shared of globex already belong to another tenant/,
    );
  });
});
