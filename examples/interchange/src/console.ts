/**
 * The approval console of `--serve`, governed by the same code as the reference server: the
 * gateway kernel (`@agentgov/gateway`) serving the interchange plugin's routes
 * (`@agentgov/interchange/gateway`: list, read, approve, reject — only the human the exchange
 * names may decide; another tenant's exchange is 404), with the kernel's OIDC login and session
 * cookie against the reference server's development issuer (examples/server/src/dev-issuer.ts,
 * accounts alice, bob and dave, any password). Nothing here decides who may decide.
 *
 * What the example adds: `deskStore` (the assistants' own exchange stores seen as the one store
 * the plugin serves), `GET /api/v1/pending` (what waits for the signed-in human), a page at `/`
 * that signs in and approves, and a guard in front of the kernel: a state-changing request must be
 * `application/json` (415 otherwise, as the kernel's POST /auth/callback). The kernel itself
 * refuses a cookie-authenticated write from another origin (403): the session cookie is
 * `SameSite=Strict`, but a page on another port of 127.0.0.1 is the same site.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type AuditSink,
  defineRoute,
  type Exchange,
  type ExchangeListFilter,
  type ExchangeStore,
  type GatewayPlugin,
  InMemoryAuditSink,
  InMemoryOrgDirectory,
  InMemorySecretStore,
} from '@agentgov/core';
import { createGovernance, createMemoryStores } from '@agentgov/gateway';
import { pendingApproval } from '@agentgov/interchange';
import { interchangeRoutes } from '@agentgov/interchange/gateway';
import { type DevAccount, startDevIssuer } from '../../server/src/dev-issuer';
import { type Assistant, PEOPLE } from './world';

export interface ApprovalConsole {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** The development OIDC issuer the humans sign in with. */
  issuer: string;
  close(): Promise<void>;
}

const tenantOf = (a: Assistant) => PEOPLE[a.person].tenantId;
const newestFirst = (a: Exchange, b: Exchange) =>
  b.startedAt.localeCompare(a.startedAt) || b.exchangeId.localeCompare(a.exchangeId);

/**
 * The assistants' exchange stores as one `ExchangeStore`. Each assistant keeps its own record of an
 * exchange, so one between two assistants served here (alice → bob) is in both stores: the desk
 * holds the responder's record — the one its human decides on, and the one the responder's node
 * reads when the asking agent collects — and the initiator's only when the responder is elsewhere.
 */
function deskStore(assistants: readonly Assistant[]): ExchangeStore {
  const inTenant = (tenantId: string) => assistants.filter((a) => tenantOf(a) === tenantId);
  const holder = (x: Exchange): Assistant | undefined =>
    inTenant(x.tenantId).find((a) => a.agentId === x.responderAgentId) ??
    inTenant(x.tenantId).find((a) => a.agentId === x.initiatorAgentId);
  const all = async (tenantId: string, filter: ExchangeListFilter): Promise<Exchange[]> => {
    const out: Exchange[] = [];
    for (const a of inTenant(tenantId)) {
      const page = await a.store.list(tenantId, filter, { offset: 0, limit: Number.MAX_SAFE_INTEGER });
      out.push(...page.exchanges.filter((x) => holder(x) === a));
    }
    return out.sort(newestFirst);
  };
  return {
    async insert(x) {
      const a = holder(x);
      if (!a) throw new Error(`no assistant served here takes part in exchange ${x.exchangeId}`);
      await a.store.insert(x);
    },
    async update(x, expectedRound, expectedTranscriptLength) {
      const a = holder(x);
      return a ? a.store.update(x, expectedRound, expectedTranscriptLength) : false;
    },
    async get(tenantId, exchangeId) {
      for (const a of inTenant(tenantId)) {
        const x = await a.store.get(tenantId, exchangeId);
        if (x && holder(x) === a) return x;
      }
      return undefined;
    },
    async listByConversation(tenantId, conversationId) {
      return (await all(tenantId, {})).filter((x) => x.conversationId === conversationId).reverse();
    },
    async list(tenantId, filter, page) {
      const xs = await all(tenantId, filter);
      return { exchanges: xs.slice(page.offset, page.offset + page.limit), total: xs.length };
    },
    async countTranscriptEntries(tenantId, match) {
      const keys = Object.entries(match);
      let n = 0;
      for (const x of await all(tenantId, {}))
        for (const entry of x.transcript) if (keys.every(([k, v]) => entry[k] === v)) n++;
      return n;
    },
  };
}

/** Audit entries of a human's decision go to that human's assistant's log (the console's own otherwise). */
function auditRouter(assistants: readonly Assistant[], fallback: AuditSink): AuditSink {
  return {
    append: (entry, options) => {
      const a = assistants.find(
        (x) => tenantOf(x) === entry.tenantId && PEOPLE[x.person].userId === entry.userId,
      );
      return (a?.audit ?? fallback).append(entry, options);
    },
  };
}

/** `GET /pending`: the requests that wait for the signed-in human (none for anyone else). */
function pendingRoutes(store: ExchangeStore, assistants: readonly Assistant[]): GatewayPlugin {
  return {
    name: 'approval-console',
    routes: [
      defineRoute({
        method: 'GET',
        path: '/pending',
        operationId: 'listPendingApprovals',
        summary: 'The requests that wait for the signed-in human’s decision',
        auth: 'required',
        rateLimit: 'exchange_reads',
        responses: {
          200: {
            description:
              'Open requests: [{assistant, exchangeId, exchangeType, from, approvalId, action, reason, expiresAt}]',
          },
          401: { description: 'authentication_required / no_session / session_expired' },
        },
        async handler(_input, rc) {
          const me = rc.principal.userId;
          const page = await store.list(
            rc.tenantId,
            { userId: me, outcome: 'in_progress' },
            { offset: 0, limit: 1000 },
          );
          const out = page.exchanges.flatMap((x) => {
            const open = x.responderUserId === me ? pendingApproval(x) : undefined;
            if (!open || open.decision) return [];
            const assistant = assistants.find((a) => a.agentId === x.responderAgentId);
            return [
              {
                assistant: assistant?.person ?? x.responderAgentId,
                exchangeId: x.exchangeId,
                exchangeType: x.exchangeType,
                from: x.initiatorUserId,
                approvalId: open.request.approvalId,
                action: open.request.action,
                reason: open.request.reason,
                expiresAt: open.request.expiresAt,
              },
            ];
          });
          return { status: 200, body: out };
        },
      }),
    ],
  };
}

export async function startConsole(options: {
  assistants: readonly Assistant[];
  /** Console port (0: any free one). */
  port: number;
  /** Development issuer port (0: any free one). */
  issuerPort: number;
}): Promise<ApprovalConsole> {
  const { assistants } = options;
  let handler: http.RequestListener = (_req, res) => {
    res.writeHead(503).end();
  };
  const server = http.createServer((req, res) => handler(req, res));
  server.listen(options.port, '127.0.0.1');
  await new Promise<void>((ok, fail) => {
    server.once('listening', ok);
    server.once('error', fail);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const redirectUri = `${url}/api/v1/auth/callback`;
  const accounts: DevAccount[] = assistants.map((a) => ({
    sub: PEOPLE[a.person].userId,
    email: `${a.person}@${tenantOf(a)}.example`,
    roles: ['user'],
    tenant_id: tenantOf(a),
    org_unit: PEOPLE[a.person].orgUnit,
  }));
  const devIssuer = await startDevIssuer({
    clientId: 'interchange-console',
    clientSecret: randomUUID(),
    redirectUri,
    port: options.issuerPort,
    accounts,
  });
  const directory = new InMemoryOrgDirectory();
  for (const a of accounts) await directory.place(a.tenant_id, a.sub, { orgUnit: a.org_unit });
  const store = deskStore(assistants);
  const own = new InMemoryAuditSink();
  const governance = createGovernance({
    plugins: [
      interchangeRoutes({ store, audit: auditRouter(assistants, own), directory }),
      pendingRoutes(store, assistants),
    ],
    stores: createMemoryStores(),
    directory,
    secrets: new InMemorySecretStore(),
    audit: own,
    oidc: {
      issuer: devIssuer.issuer,
      clientId: devIssuer.clientId,
      clientSecret: devIssuer.clientSecret,
      redirectUri,
      scope: 'openid email agentgov',
      allowInsecureRequests: true,
      afterLogin: '/',
    },
    tenants: [...new Set(accounts.map((a) => a.tenant_id))].map((id) => ({ id })),
  });
  await governance.start();
  handler = (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && (path === '/' || path === '/console.js')) {
      res.writeHead(200, {
        'content-type': path === '/' ? 'text/html; charset=utf-8' : 'text/javascript; charset=utf-8',
        'content-security-policy': "default-src 'self'",
        'cache-control': 'no-store',
      });
      res.end(path === '/' ? PAGE : SCRIPT);
      return;
    }
    // A write that is not JSON (a cross-site form's text/plain) is the kernel's 415, as on the
    // reference server; one from another origin its 403.
    governance.handleNode(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  };
  return {
    url,
    issuer: devIssuer.issuer,
    close: async () => {
      const closed = new Promise<void>((ok) => server.close(() => ok()));
      server.closeAllConnections();
      await closed;
      await governance.close();
      await devIssuer.close();
    },
  };
}

const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Approval console</title></head>
<body>
<h1>Requests waiting for you</h1>
<p id="who">…</p>
<ul id="pending"></ul>
<p id="status"></p>
<script src="/console.js"></script>
</body></html>
`;

/** The page's script: who is signed in, what waits for them, and their approve / reject buttons. */
const SCRIPT = `const api = '/api/v1';
const el = (id) => document.getElementById(id);
const post = (path, body) =>
  fetch(api + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
async function load() {
  const me = await fetch(api + '/auth/userinfo');
  const list = el('pending');
  list.replaceChildren();
  if (me.status === 401) {
    const a = document.createElement('a');
    a.href = api + '/auth/login';
    a.textContent = 'Sign in';
    el('who').replaceChildren(a);
    return;
  }
  const user = await me.json();
  const out = document.createElement('button');
  out.textContent = 'Sign out';
  out.onclick = () => post('/auth/logout', {}).then(load);
  el('who').replaceChildren('Signed in as ' + user.userId + ' (' + user.tenantId + ') ', out);
  const pending = await (await fetch(api + '/pending')).json();
  if (pending.length === 0) list.textContent = 'Nothing waits for you.';
  for (const p of pending) {
    const li = document.createElement('li');
    li.textContent = p.exchangeType + ' from ' + p.from + ' (' + p.reason + ') ';
    for (const verb of ['approve', 'reject']) {
      const b = document.createElement('button');
      b.textContent = verb;
      b.onclick = async () => {
        const note = verb === 'approve' ? prompt('A note for the answer (e.g. Friday 9:00)') || '' : '';
        const res = await post('/exchanges/' + p.exchangeId + '/' + verb, note ? { approvalId: p.approvalId, note } : { approvalId: p.approvalId });
        el('status').textContent = res.ok ? verb + 'd' : res.status + ': ' + (await res.json()).message;
        load();
      };
      li.append(b);
    }
    list.append(li);
  }
}
load();
`;
