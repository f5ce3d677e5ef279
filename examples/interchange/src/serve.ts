/**
 * `--serve`: alice's, bob's and dave's assistants as long-lived A2A servers on loopback, plus the
 * approval console for the humans (console.ts: they sign in, and only the human asked decides).
 * Prints the servers' URLs, the console's URL and where the keys are (public JWKS and each agent's
 * private JWK — including a `guest` agent of tenant acme that any A2A client may sign with).
 * Options: `--port-base N` (alice N, bob N+1, dave N+2, console N+3, its development issuer N+4;
 * default: any free ports), `--keys DIR` (default `./.interchange-keys`; existing keys are reused
 * so identities survive restarts).
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { type AgentKeyPair, generateAgentKeys, signingKeyFromJwk } from '@agentgov/interchange';
import { A2ATransport, type GovernedA2AServer, startA2AServer } from '@agentgov/interchange/a2a';
import { startConsole } from './console';
import { type Assistant, buildWorld, GUEST, PEOPLE, type Person } from './world';

const option = (args: string[], name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};

/**
 * An agent's key pair, kept in `dir` as `<name>.private.jwk.json`: created on the first start,
 * read again afterwards. Each key is bound to the one user its agent acts for (the JWK's `userId`);
 * a key kept by an earlier version without it is bound and kept again.
 */
async function loadOrCreate(
  dir: string,
  name: string,
  tenantId: string,
  agentId: string,
  userId: string,
): Promise<AgentKeyPair> {
  const file = resolve(dir, `${name}.private.jwk.json`);
  if (existsSync(file)) {
    const kept = JSON.parse(await readFile(file, 'utf8'));
    const privateJwk = { ...kept, userId: kept.userId ?? userId };
    if (kept.userId === undefined)
      await writeFile(file, `${JSON.stringify(privateJwk, null, 2)}\n`, { mode: 0o600 });
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

export interface Served {
  /** Each assistant's A2A URL. */
  agents: Record<Person, string>;
  /** The approval console (`/` the page, `/api/v1/...` the gateway). */
  console: string;
  /** The development OIDC issuer the humans sign in with. */
  issuer: string;
  keys: string;
  assistants: Record<Person, Assistant>;
  close(): Promise<void>;
}

/** Starts the three assistants and the approval console (what `--serve` runs, and the tests). */
export async function startServe(options: { portBase?: number; keys: string }): Promise<Served> {
  const base = options.portBase ?? 0;
  const dir = resolve(options.keys);
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
  const transports: A2ATransport[] = [];
  const { assistants, ring } = await buildWorld((_person, keys, keyRing) => {
    const transport = new A2ATransport({
      signingKey: keys.signingKey,
      keys: keyRing,
      resolve: (agentId) => urls.get(agentId),
    });
    transports.push(transport);
    return transport;
  }, pairs);
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
  // The humans decide in the console: the gateway kernel with the interchange plugin's routes,
  // signed in through the development issuer (see console.ts).
  const approvals = await startConsole({
    assistants: people.map((p) => assistants[p]),
    port: base ? base + people.length : 0,
    issuerPort: base ? base + people.length + 1 : 0,
  });
  return {
    agents: Object.fromEntries(people.map((p) => [p, urls.get(`${p}-assistant`)])) as Record<Person, string>,
    console: approvals.url,
    issuer: approvals.issuer,
    keys: dir,
    assistants,
    close: async () => {
      await approvals.close();
      for (const s of servers) await s.close();
      // The clients' keep-alive connections to the servers just closed.
      for (const t of transports) await t.close();
    },
  };
}

export async function serve(args: string[]): Promise<void> {
  const portBase = Number(option(args, '--port-base') ?? '0');
  const s = await startServe({ portBase, keys: option(args, '--keys') ?? '.interchange-keys' });
  const { agents, console: consoleUrl, issuer, keys: dir } = s;
  const people = Object.keys(PEOPLE) as Person[];
  process.stdout.write(
    `${JSON.stringify({ ready: true, agents, console: consoleUrl, issuer, keys: dir })}\n`,
  );
  for (const p of people)
    process.stdout.write(
      `${p}'s assistant (${PEOPLE[p].tenantId}): ${agents[p]} — card at ${agents[p]}.well-known/agent-card.json\n`,
    );
  process.stdout.write(
    `keys: ${dir} (jwks.json public; <name>.private.jwk.json private — sign as guest-assistant with guest.private.jwk.json)\n`,
  );
  process.stdout.write(
    `approve: open ${consoleUrl}/ in a browser and sign in as the human asked (${people.join(', ')}; any password, development issuer ${issuer})\n`,
  );
  const stop = async () => {
    await s.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
