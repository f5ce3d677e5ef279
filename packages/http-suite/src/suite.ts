/**
 * The HTTP conformance suite of the governance service: every route, role and error of the spec,
 * run against a real server on port 0 built by an adapter (Express, Koa, or plain node:http).
 *
 *   describeHttpSuite('express', async (governance) => { …listen on 0…; return { url, close } });
 *
 * The case groups run in this order against one server (later groups read what earlier ones wrote).
 */
import type { Governance } from '@agentgov/gateway';
import {
  type ServerFactory,
  type StartedServer,
  startTestIssuer,
  type TestIssuer,
} from '@agentgov/gateway/testing';
import { afterAll, beforeAll, describe } from 'vitest';
import { adminCases } from './cases/admin';
import { applicationAuthCases } from './cases/application-auth';
import { auditCases } from './cases/audit';
import { auditProofCases } from './cases/audit-proofs';
import { authCases } from './cases/auth';
import { connectorSecretCases } from './cases/connector-secrets';
import { connectorCases } from './cases/connectors';
import { interchangeCases } from './cases/interchange';
import { kernelCases } from './cases/kernel';
import { mcpCases } from './cases/mcp';
import { observabilityCases } from './cases/observability';
import { policyCases } from './cases/policies';
import { rateLimitCases } from './cases/rate-limits';
import { sessionCases } from './cases/sessions';
import { workTrackingCases } from './cases/work-tracking';
import { ACCOUNTS, callApi, expectError, type Harness, type Who } from './harness';
import { createTestService, type TestServiceOverrides } from './service';

export function describeHttpSuite(name: string, startServer: ServerFactory): void {
  describe(`HTTP conformance: ${name}`, () => {
    let idp: TestIssuer;
    let server: StartedServer;
    let gov: Governance;
    const tokens = {} as Record<Who, string>;
    const extra: StartedServer[] = [];

    async function setup(over: TestServiceOverrides = {}) {
      const g = await createTestService(idp, {
        ...over,
        kernel: { limits: { heartbeatMs: 60_000 }, ...over.kernel },
      });
      await g.start();
      return { gov: g, server: await startServer(g) };
    }

    const h: Harness = {
      get idp() {
        return idp;
      },
      get server() {
        return server;
      },
      get gov() {
        return gov;
      },
      tokens,
      extra,
      setup,
      call: (path, init) => callApi(server.url, tokens, path, init),
      expectError,
    };

    beforeAll(async () => {
      idp = await startTestIssuer();
      ({ gov, server } = await setup());
      for (const who of Object.keys(ACCOUNTS) as Who[]) tokens[who] = await idp.signIdToken(ACCOUNTS[who]);
    });
    afterAll(async () => {
      for (const s of extra) await s.close();
      await server?.close();
      await gov?.close();
      await idp?.close();
    });

    kernelCases(h);
    authCases(h);
    applicationAuthCases(h);
    sessionCases(h);
    policyCases(h);
    auditCases(h);
    auditProofCases(h);
    connectorCases(h);
    connectorSecretCases(h);
    adminCases(h);
    interchangeCases(h);
    mcpCases(h);
    workTrackingCases(h);
    rateLimitCases(h);
    observabilityCases(h);
  });
}
