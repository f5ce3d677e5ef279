/** biome-ignore-all lint/suspicious/noExplicitAny: JSON bodies of a black-box HTTP suite are read without schemas */
/**
 * What every case group of the HTTP suite shares: the test issuer, the accounts and their tokens,
 * the server under test, `call` (a real fetch) and `expectError` (the spec's error body).
 */
import type {
  Decision,
  DecisionEngine,
  PolicyEngineUnreachableError,
  PolicyStore,
  Result,
} from '@agentgov/core';
import { err, PolicyEngineUnreachableError as Unreachable } from '@agentgov/core';
import type { Governance } from '@agentgov/gateway';
import type { StartedServer, TestAccount, TestIssuer } from '@agentgov/gateway/testing';
import { expect } from 'vitest';
import type { TestServiceOverrides } from './service';

export const ACCOUNTS = {
  enterpriseAdmin: {
    sub: 'ea-1',
    email: 'ea@acme.test',
    roles: ['enterprise_admin'],
    tenant_id: 'acme',
    org_unit: 'hq',
  },
  orgAdmin: {
    sub: 'oa-eng',
    email: 'oa@acme.test',
    roles: ['org_admin'],
    tenant_id: 'acme',
    org_unit: 'eng',
  },
  orgAdminSales: {
    sub: 'oa-sales',
    email: 'os@acme.test',
    roles: ['org_admin'],
    tenant_id: 'acme',
    org_unit: 'sales',
  },
  teamLead: {
    sub: 'tl-platform',
    email: 'tl@acme.test',
    roles: ['team_lead'],
    tenant_id: 'acme',
    org_unit: 'eng',
    team: 'platform',
  },
  user: {
    sub: 'u-alice',
    email: 'alice@acme.test',
    roles: ['user'],
    tenant_id: 'acme',
    org_unit: 'eng',
    team: 'platform',
  },
  userSales: { sub: 'u-bob', email: 'bob@acme.test', roles: ['user'], tenant_id: 'acme', org_unit: 'sales' },
  otherTenantAdmin: {
    sub: 'ea-globex',
    email: 'ea@globex.test',
    roles: ['enterprise_admin'],
    tenant_id: 'globex',
  },
} satisfies Record<string, TestAccount>;
export type Who = keyof typeof ACCOUNTS;

export const policyBody = (over: Record<string, unknown> = {}) => ({
  scope: 'enterprise',
  scopeId: 'acme',
  domain: 'agent-to-agent',
  name: 'Enterprise A2A',
  version: '1.0.0',
  content: 'enabled: true\nmax_classification_shared: confidential\n',
  changeReason: 'initial',
  ...over,
});

/** A decision engine that cannot be reached (fail closed). */
export class DownEngine implements DecisionEngine {
  readonly name = 'opa';
  async decide(): Promise<Result<Decision, PolicyEngineUnreachableError>> {
    return err(new Unreachable('connection refused'));
  }
  async health(): Promise<boolean> {
    return false;
  }
}

/** A policy store whose database is down. */
export function failingPolicyStore(): PolicyStore {
  const down = async (): Promise<never> => {
    throw new Error('ECONNREFUSED 127.0.0.1:5432');
  };
  return { insert: down, update: down, get: down, list: down, count: down };
}

export interface CallInit {
  method?: string;
  as?: Who;
  token?: string;
  body?: unknown;
  raw?: BodyInit;
  headers?: Record<string, string>;
  /** Another server's origin (one started with `setup`). */
  base?: string;
}

export interface CallResult {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface Harness {
  readonly idp: TestIssuer;
  readonly server: StartedServer;
  readonly gov: Governance;
  readonly tokens: Record<Who, string>;
  /** Servers started by cases, closed after the suite. */
  readonly extra: StartedServer[];
  /** A fresh service (with overrides) behind the adapter under test. */
  setup(over?: TestServiceOverrides): Promise<{ gov: Governance; server: StartedServer }>;
  call(path: string, init?: CallInit): Promise<CallResult>;
  expectError(r: { status: number; body: any; headers: Headers }, status: number, code?: string): void;
}

/** `fetch` of `<base>/api/v1<path>` as one of the accounts, the body read as text and JSON. */
export async function callApi(
  base: string,
  tokens: Record<Who, string>,
  path: string,
  init: CallInit = {},
): Promise<CallResult> {
  const headers = new Headers(init.headers);
  const token = init.token ?? (init.as ? tokens[init.as] : undefined);
  if (token) headers.set('authorization', `Bearer ${token}`);
  let body: BodyInit | undefined = init.raw;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers.set('content-type', 'application/json');
  }
  const res = await fetch(`${init.base ?? base}/api/v1${path}`, {
    method: init.method ?? 'GET',
    headers,
    ...(body !== undefined ? { body } : {}),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/** The spec's error body: `{error, message}` strings, the expected status and code, a request id. */
export function expectError(
  r: { status: number; body: any; headers: Headers },
  status: number,
  code?: string,
) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(typeof r.body?.error).toBe('string');
  expect(typeof r.body?.message).toBe('string');
  if (code) expect(r.body.error).toBe(code);
  expect(r.headers.get('x-request-id')).toBeTruthy();
}
