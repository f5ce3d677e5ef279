/**
 * `--serve`: alice's, bob's and dave's assistants as long-lived A2A servers on loopback, plus a
 * small approval console for the humans. Prints the servers' URLs, the console's URL and where the
 * keys are (public JWKS and each agent's private JWK — including a `guest` agent of tenant acme
 * that any A2A client may sign with). Options: `--port-base N` (alice N, bob N+1, dave N+2,
 * console N+3; default: any free ports), `--keys DIR` (default `./.interchange-keys`; existing
 * keys are reused so identities survive restarts).
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import {
  type AgentKeyPair,
  generateAgentKeys,
  pendingApproval,
  signingKeyFromJwk,
} from '@agentgov/interchange';
import { A2ATransport, type GovernedA2AServer, startA2AServer } from '@agentgov/interchange/a2a';
import { buildWorld, GUEST, PEOPLE, type Person } from './world';

const option = (args: string[], name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};

async function loadOrCreate(
  dir: string,
  name: string,
  tenantId: string,
  agentId: string,
  userId: string,
): Promise<AgentKeyPair> {
  const file = resolve(dir, `${name}.private.jwk.json`);
  if (existsSync(file)) {
    // Keys written before keys named their user are bound to the user they were made for.
    const privateJwk = { userId, ...JSON.parse(await readFile(file, 'utf8')) };
    const { d: _d, ...publicJwk } = privateJwk;
    return {
      signingKey: await signingKeyFromJwk(privateJwk),
      privateJwk,
      publicJwk: { ...publicJwk, use: 'sig' },
    };
  }
  const pair = await generateAgentKeys(tenantId, agentId, { userId });
  await writeFile(file, `${JSON.stringify(pair.privateJwk, null, 2)}\n`, { mode: 0o600 });
  return pair;
}

export async function serve(args: string[]): Promise<void> {
  const base = Number(option(args, '--port-base') ?? '0');
  const dir = resolve(option(args, '--keys') ?? '.interchange-keys');
  await mkdir(dir, { recursive: true });
  const pairs = {} as Record<Person, AgentKeyPair>;
  for (const person of Object.keys(PEOPLE) as Person[])
    pairs[person] = await loadOrCreate(
      dir,
      person,
      PEOPLE[person].tenantId,
      `${person}-assistant`,
      PEOPLE[person].userId,
    );
  const guest = await loadOrCreate(dir, 'guest', GUEST.tenantId, 'guest-assistant', GUEST.userId);
  const urls = new Map<string, string>();
  const { assistants, ring } = await buildWorld(
    (_person, keys, keyRing) =>
      new A2ATransport({
        signingKey: keys.signingKey,
        keys: keyRing,
        resolve: (agentId) => urls.get(agentId),
      }),
    pairs,
  );
  ring.add(guest.publicJwk);
  await writeFile(resolve(dir, 'jwks.json'), `${JSON.stringify(ring.jwks(), null, 2)}\n`);
  const servers: GovernedA2AServer[] = [];
  const people = Object.keys(PEOPLE) as Person[];
  for (const [i, person] of people.entries()) {
    const a = assistants[person];
    const s = await startA2AServer({
      node: a.node,
      signingKey: a.keys.signingKey,
      keys: ring,
      port: base ? base + i : 0,
      name: `${person}'s assistant`,
    });
    servers.push(s);
    urls.set(a.agentId, s.url);
  }
  const consoleServer = http.createServer((req, res) => {
    handleConsole(req, res).catch((error: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'internal_error', message: (error as Error).message }));
    });
  });
  async function handleConsole(req: http.IncomingMessage, res: http.ServerResponse) {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(`${JSON.stringify(body, null, 2)}\n`);
    };
    const url = new URL(req.url ?? '/', 'http://console');
    if (req.method === 'GET' && url.pathname === '/pending') {
      const out: unknown[] = [];
      for (const person of people) {
        const a = assistants[person];
        const page = await a.store.list(
          PEOPLE[person].tenantId,
          { outcome: 'in_progress' },
          { offset: 0, limit: 100 },
        );
        for (const x of page.exchanges) {
          const open = x.responderAgentId === a.agentId ? pendingApproval(x) : undefined;
          if (open && !open.decision)
            out.push({
              assistant: person,
              exchangeId: x.exchangeId,
              exchangeType: x.exchangeType,
              from: x.initiatorUserId,
              approvalId: open.request.approvalId,
              action: open.request.action,
              reason: open.request.reason,
              expiresAt: open.request.expiresAt,
            });
        }
      }
      return send(200, out);
    }
    if (req.method === 'POST' && url.pathname === '/decide') {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {
        assistant?: Person;
        exchangeId?: string;
        decision?: 'approved' | 'rejected';
        note?: string;
      };
      const a = body.assistant ? assistants[body.assistant] : undefined;
      if (!a || !body.exchangeId || (body.decision !== 'approved' && body.decision !== 'rejected')) {
        return send(400, {
          error: 'invalid_type',
          message: 'body: {assistant: alice|bob|dave, exchangeId, decision: approved|rejected, note?}',
        });
      }
      const r = await a.node.decide({
        exchangeId: body.exchangeId,
        by: PEOPLE[a.person].userId,
        decision: body.decision,
        ...(body.note ? { note: body.note } : {}),
      });
      return r.isErr() ? send(r.error.status, r.error.toBody()) : send(200, r.value);
    }
    return send(404, { error: 'NOT_FOUND', message: 'GET /pending or POST /decide' });
  }
  consoleServer.listen(base ? base + people.length : 0, '127.0.0.1');
  await new Promise<void>((ok) => consoleServer.once('listening', ok));
  const consoleUrl = `http://127.0.0.1:${(consoleServer.address() as AddressInfo).port}`;
  const agents = Object.fromEntries(people.map((p) => [p, urls.get(`${p}-assistant`)]));
  process.stdout.write(`${JSON.stringify({ ready: true, agents, console: consoleUrl, keys: dir })}\n`);
  for (const p of people)
    process.stdout.write(
      `${p}'s assistant (${PEOPLE[p].tenantId}): ${agents[p]} — card at ${agents[p]}.well-known/agent-card.json\n`,
    );
  process.stdout.write(
    `keys: ${dir} (jwks.json public; <name>.private.jwk.json private — sign as guest-assistant with guest.private.jwk.json)\n`,
  );
  process.stdout.write(
    `approve: curl ${consoleUrl}/pending; curl -X POST ${consoleUrl}/decide -d '{"assistant":"bob","exchangeId":"…","decision":"approved"}'\n`,
  );
  const stop = async () => {
    consoleServer.close();
    for (const s of servers) await s.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
