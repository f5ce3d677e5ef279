/**
 * The server commands against a real reference server (examples/server, in-process, port 0,
 * memory database, its development issuer): `policy diff` / `policy apply` (Idempotency-Key on
 * every write; a lost response is retried and replayed, not applied twice), `audit prove` and
 * `audit verify-proof` (signed-note checkpoint, inclusion and consistency proofs, tampering).
 */
import { once } from 'node:events';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateAuditKeys, noteVerifierKey, publicJwkOf } from '@agentgov/audit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../examples/server/src/config';
import { type RunningServer, startServer } from '../../../examples/server/src/server';
import { run } from '../src/index';
import { captureIo } from './capture-io';

const fixture = fileURLToPath(new URL('./fixtures/policy-tests', import.meta.url));
let server: RunningServer;
let token: string;
let work: string;
let publicKeyFile: string;
let publicJwk: ReturnType<typeof publicJwkOf>;

beforeAll(async () => {
  const keys = await generateAuditKeys();
  publicJwk = publicJwkOf(JSON.parse(keys.signingKey));
  server = await startServer(
    loadConfig({ DATABASE_URL: 'memory:', PORT: '0', AGENTGOV_CHECKPOINT_INTERVAL: '1' }),
    {
      env: {
        AGENTGOV_SECRET_AUDIT_SIGNING_KEY: keys.signingKey,
        AGENTGOV_SECRET_AUDIT_COMMITMENT_KEY: keys.commitmentKey,
      },
    },
  );
  token = await (server.devIssuer as NonNullable<RunningServer['devIssuer']>).mintIdToken('alice');
  work = await mkdtemp(join(tmpdir(), 'agentgov-cli-server-'));
  publicKeyFile = join(work, 'log-public.jwk.json');
  await writeFile(publicKeyFile, JSON.stringify(publicJwk));
});
afterAll(async () => {
  await server?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

const env = () => ({ AGENTGOV_SERVER: server.url, AGENTGOV_TOKEN: token });

const ENG_V11 =
  'scope: org\nscopeId: eng\ndomain: agent-to-agent\nname: eng exchange rules\nversion: 1.1.0\nchangeReason: one round is enough\ncontent:\n  max_rounds:\n    information_query: 1\n';

/** The fixture; `current`: as the first test leaves the server (eng at 1.1.0: versions never go down). */
async function copyFixture(name: string, current = true): Promise<string> {
  const dir = join(work, name);
  await cp(fixture, dir, { recursive: true });
  if (current) await writeFile(join(dir, 'policies/org-eng-a2a.yaml'), ENG_V11);
  return dir;
}

async function activePolicies(): Promise<{ id: string; name: string; version: string; content: string }[]> {
  const res = await fetch(`${server.url}/api/v1/policies?status=active`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return res.json();
}

describe('agentgov policy diff / apply against the reference server', () => {
  it('diff shows creations (exit 1), apply writes them, then diff is clean (exit 0)', async () => {
    const dir = await copyFixture('apply', false);
    const diff = captureIo(env());
    expect(await run(['policy', 'diff', dir], diff), diff.err).toBe(1);
    expect(diff.out).toContain(
      "+ create enterprise/acme agent-to-agent 'enterprise exchange rules' 1.0.0 (policies/enterprise-a2a.yaml)",
    );
    expect(diff.out).toContain('    +   information_query: 2');
    expect(diff.out).toContain('3 to create, 0 to update, 0 to remove, 0 unchanged');

    const apply = captureIo(env());
    expect(
      await run(['policy', 'apply', dir, '--server', server.url, '--token', token], apply),
      apply.err,
    ).toBe(0);
    expect(apply.out).toContain('3 created, 0 updated, 0 deprecated, 0 unchanged');
    expect((await activePolicies()).map((p) => p.name).sort()).toEqual([
      'eng exchange rules',
      'enterprise exchange rules',
      'tool autonomy',
    ]);

    const clean = captureIo(env());
    expect(await run(['policy', 'diff', dir, '--json'], clean)).toBe(0);
    const plan = JSON.parse(clean.out);
    expect(plan).toMatchObject({ changes: false, tenantId: 'acme' });
    expect(plan.items.map((i: { action: string }) => i.action)).toEqual([
      'unchanged',
      'unchanged',
      'unchanged',
    ]);

    // Changed content and version, a removed file: update now, removal only with --prune.
    await writeFile(join(dir, 'policies/org-eng-a2a.yaml'), ENG_V11);
    await rm(join(dir, 'policies/enterprise-actions.yaml'));
    const changed = captureIo(env());
    expect(await run(['policy', 'diff', dir], changed)).toBe(1);
    expect(changed.out).toContain("~ update org/eng agent-to-agent 'eng exchange rules' 1.0.0 -> 1.1.0");
    expect(changed.out).toContain('    -   information_query: 2\n    +   information_query: 1');
    expect(changed.out).toContain("- remove enterprise/acme actions 'tool autonomy' 1.0.0");
    expect(changed.out).toContain('0 to create, 1 to update, 1 to remove, 1 unchanged');

    const update = captureIo(env());
    expect(await run(['policy', 'apply', dir], update), update.err).toBe(0);
    expect(update.out).toContain('0 created, 1 updated, 0 deprecated, 1 unchanged, 1 not in');
    const eng = (await activePolicies()).find((p) => p.name === 'eng exchange rules');
    expect(eng?.version).toBe('1.1.0');
    expect(eng?.content).toContain('information_query: 1');

    const prune = captureIo(env());
    expect(await run(['policy', 'apply', dir, '--prune', '--json'], prune), prune.err).toBe(0);
    const report = JSON.parse(prune.out);
    expect(report.results).toEqual([
      expect.objectContaining({ action: 'deprecate', name: 'tool autonomy', ok: true, status: 200 }),
    ]);
    expect(report.results[0].idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(await run(['policy', 'diff', dir], captureIo(env()))).toBe(0);
  });

  it('a write whose response is lost is retried with the same Idempotency-Key and replayed, not applied twice', async () => {
    // A proxy that forwards every request but cuts the connection instead of answering the first POST.
    const seen: { method: string; key: string | null; replayed: string | null }[] = [];
    let cut = false;
    const proxy = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const upstream = await fetch(`${server.url}${req.url}`, {
        method: req.method,
        headers: Object.fromEntries(
          Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k)),
        ) as Record<string, string>,
        ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
      });
      const body = Buffer.from(await upstream.arrayBuffer());
      if (req.method === 'POST') {
        seen.push({
          method: req.method,
          key: req.headers['idempotency-key'] as string,
          replayed: upstream.headers.get('idempotent-replayed'),
        });
        if (!cut) {
          cut = true;
          req.socket.destroy(); // the write happened; its answer never arrives
          return;
        }
      }
      res.writeHead(upstream.status, {
        'content-type': upstream.headers.get('content-type') ?? 'application/json',
      });
      res.end(body);
    });
    proxy.listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    try {
      const dir = await copyFixture('retry');
      await rm(join(dir, 'policies/enterprise-actions.yaml')); // deprecated by the first test
      await writeFile(
        join(dir, 'policies/org-eng-features.yaml'),
        'scope: org\nscopeId: eng\ndomain: features\nname: eng features\nversion: 1.0.0\ncontent:\n  auto_response: false\n',
      );
      const before = (await activePolicies()).length;
      const io = captureIo({ AGENTGOV_TOKEN: token });
      const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      expect(await run(['policy', 'apply', dir, '--server', url], io), io.err).toBe(0);
      expect(seen.length).toBeGreaterThanOrEqual(2);
      expect(seen[1]?.key).toBe(seen[0]?.key); // the retry carried the first attempt's key
      expect(seen[1]?.replayed).toBe('true'); // and the server replayed instead of writing again
      const after = await activePolicies();
      expect(after.filter((p) => p.name === 'eng features')).toHaveLength(1);
      expect(after.length).toBe(before + (seen.length - 1));
    } finally {
      proxy.closeAllConnections();
      proxy.close();
    }
  });

  it('diff compares contents as values: formatting, comments and key order are no change', async () => {
    const created = await fetch(`${server.url}/api/v1/policies`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        scope: 'enterprise',
        scopeId: 'acme',
        domain: 'features',
        name: 'enterprise features',
        version: '1.0.0',
        content: '# written by hand\n{ auto_response: true, briefings: true }\n',
        changeReason: 'by hand',
      }),
    });
    expect(created.status).toBe(201);
    const dir = await copyFixture('format');
    await writeFile(
      join(dir, 'policies/enterprise-features.yaml'),
      'scope: enterprise\nscopeId: acme\ndomain: features\nname: enterprise features\nversion: 1.0.0\ncontent:\n  briefings: true\n  auto_response: true\n',
    );
    const io = captureIo(env());
    await run(['policy', 'diff', dir, '--json'], io);
    const item = JSON.parse(io.out).items.find((i: { name: string }) => i.name === 'enterprise features');
    expect(item).toMatchObject({ action: 'unchanged', file: 'policies/enterprise-features.yaml' });
  });

  it('refuses before sending anything: an invalid directory, another tenant, a bad token, no server', async () => {
    const before = (await activePolicies()).length;
    const violation = captureIo(env());
    expect(
      await run(
        ['policy', 'apply', fileURLToPath(new URL('./fixtures/violation', import.meta.url))],
        violation,
      ),
    ).toBe(1);
    expect(violation.err).toContain('nothing was sent');

    const other = await copyFixture('globex');
    const dirYaml = join(other, 'directory.yaml');
    await writeFile(dirYaml, (await readFile(dirYaml, 'utf8')).replace('tenant: acme', 'tenant: globex'));
    for (const f of ['enterprise-a2a.yaml', 'enterprise-actions.yaml']) {
      const p = join(other, 'policies', f);
      await writeFile(p, (await readFile(p, 'utf8')).replace('scopeId: acme', 'scopeId: globex'));
    }
    const tenant = captureIo(env());
    expect(await run(['policy', 'apply', other], tenant)).toBe(2);
    expect(tenant.err).toContain("the token is for tenant 'acme' but");

    const bad = captureIo({ AGENTGOV_SERVER: server.url, AGENTGOV_TOKEN: 'not-a-token' });
    expect(await run(['policy', 'diff', fixture], bad)).toBe(2);
    expect(bad.err).toContain('the server refused the token: GET /auth/userinfo: 401');

    const none = captureIo({ AGENTGOV_TOKEN: token });
    expect(await run(['policy', 'diff', fixture], none)).toBe(2);
    expect(none.err).toContain('--server URL is required');
    expect((await activePolicies()).length).toBe(before);
  });
});

describe('agentgov audit prove / verify-proof against the reference server', () => {
  async function latestCheckpointSize(): Promise<number> {
    const res = await fetch(`${server.url}/api/v1/audit/checkpoint`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return res.status === 200 ? (await res.json()).treeSize : 0;
  }
  async function waitForCheckpoint(atLeast: number): Promise<number> {
    for (let i = 0; i < 100; i++) {
      const size = await latestCheckpointSize();
      if (size >= atLeast) return size;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`no checkpoint of size >= ${atLeast}`);
  }
  async function entries(): Promise<{ id: string }[]> {
    const res = await fetch(`${server.url}/api/v1/audit?page_size=1000`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return (await res.json()).entries;
  }

  it('proves an entry, saves it, and verifies it offline with the log key; tampering and wrong keys fail', async () => {
    // The policy writes above are audited; make sure there are entries and a checkpoint over them.
    await run(['policy', 'apply', await copyFixture('audit')], captureIo(env()));
    const all = await entries();
    expect(all.length).toBeGreaterThan(0);
    const size = await waitForCheckpoint(all.length);
    const entryId = (all.at(-1) as { id: string }).id;
    const proofFile = join(work, 'entry.proof.json');
    const prove = captureIo(env());
    expect(await run(['audit', 'prove', entryId, '--out', proofFile], prove), prove.err).toBe(0);
    expect(prove.out).toContain(`saved inclusion proof of entry ${entryId}`);
    const saved = JSON.parse(await readFile(proofFile, 'utf8'));
    expect(saved).toMatchObject({
      format: 'agentgov-audit-proof/1',
      inclusion: { entryId },
      checkpoint: { origin: expect.any(String) },
    });
    expect(saved.checkpoint.treeSize).toBeGreaterThanOrEqual(size);

    const ok = captureIo();
    expect(await run(['audit', 'verify-proof', proofFile, '--public-key', publicKeyFile], ok), ok.err).toBe(
      0,
    );
    expect(ok.out).toContain(`inclusion: entry ${entryId}`);
    expect(ok.out).toMatch(/verified\n$/);
    const byNoteKey = captureIo();
    const vk = noteVerifierKey(saved.checkpoint.origin, publicJwk);
    expect(await run(['audit', 'verify-proof', proofFile, '--verifier-key', vk, '--json'], byNoteKey)).toBe(
      0,
    );
    expect(JSON.parse(byNoteKey.out)).toMatchObject({
      ok: true,
      checkpoint: { ok: true },
      inclusion: { ok: true },
    });

    // Tampered proof path, leaf or checkpoint note: exit 1.
    const tamper = async (name: string, change: (p: typeof saved) => void) => {
      const copy = structuredClone(saved);
      change(copy);
      const f = join(work, `${name}.proof.json`);
      await writeFile(f, JSON.stringify(copy));
      const io = captureIo();
      const code = await run(['audit', 'verify-proof', f, '--public-key', publicKeyFile, '--json'], io);
      return { code, report: JSON.parse(io.out) };
    };
    const flip = (hex: string) => `${hex[0] === '0' ? '1' : '0'}${hex.slice(1)}`;
    const leaf = await tamper('leaf', (p) => {
      p.inclusion.leafHash = flip(p.inclusion.leafHash);
    });
    expect(leaf.code).toBe(1);
    expect(leaf.report.inclusion).toMatchObject({
      ok: false,
      reason: 'the inclusion proof does not lead to the signed root',
    });
    if (saved.inclusion.proof.length > 0) {
      const path = await tamper('path', (p) => {
        p.inclusion.proof[0] = flip(p.inclusion.proof[0]);
      });
      expect(path.code).toBe(1);
    }
    const note = await tamper('note', (p) => {
      const lines = p.checkpoint.note.split('\n');
      lines[1] = String(Number(lines[1]) + 1);
      p.checkpoint.note = lines.join('\n');
    });
    expect(note.code).toBe(1);
    expect(note.report.checkpoint).toMatchObject({
      ok: false,
      reason: expect.stringContaining('checkpoint signature'),
    });

    const otherKey = publicJwkOf(JSON.parse((await generateAuditKeys()).signingKey));
    const otherFile = join(work, 'other.jwk.json');
    await writeFile(otherFile, JSON.stringify(otherKey));
    const wrong = captureIo();
    expect(await run(['audit', 'verify-proof', proofFile, '--public-key', otherFile], wrong)).toBe(1);
    expect(wrong.err).toContain('NOT VERIFIED');

    const noKey = captureIo();
    expect(await run(['audit', 'verify-proof', proofFile], noKey)).toBe(2);
    expect(noKey.err).toContain("the log's public key is required");
  });

  it('proves consistency from a saved checkpoint to a later one, and catches a forged earlier root', async () => {
    await run(['policy', 'apply', await copyFixture('grow-1')], captureIo(env()));
    const first = await waitForCheckpoint((await entries()).length);
    const oldFile = join(work, 'old-checkpoint.json');
    const cp0 = await fetch(`${server.url}/api/v1/audit/checkpoint`, {
      headers: { authorization: `Bearer ${token}` },
    });
    await writeFile(oldFile, await cp0.text());

    // The log grows: a new policy is written (audited), then checkpointed.
    const dir = await copyFixture('grow-2');
    await writeFile(
      join(dir, 'policies/org-eng-models.yaml'),
      'scope: org\nscopeId: eng\ndomain: models\nname: eng models\nversion: 1.0.0\ncontent:\n  denied_models: [experimental-preview]\n',
    );
    const grew = captureIo(env());
    expect(await run(['policy', 'apply', dir], grew), grew.err).toBe(0);
    const later = await waitForCheckpoint(first + 1);
    expect(later).toBeGreaterThan(first);

    const proofFile = join(work, 'consistency.proof.json');
    const prove = captureIo(env());
    expect(await run(['audit', 'prove', '--since', oldFile, '--out', proofFile], prove), prove.err).toBe(0);
    expect(prove.out).toMatch(new RegExp(`consistency proof ${first} -> \\d+`));
    const ok = captureIo();
    expect(
      await run(
        ['audit', 'verify-proof', proofFile, '--public-key', publicKeyFile, '--checkpoint', oldFile],
        ok,
      ),
      ok.err,
    ).toBe(0);
    expect(ok.out).toMatch(
      new RegExp(`consistency: the tree of size ${first} is a prefix of the tree of size \\d+`),
    );

    // A forged "earlier" checkpoint (same size, another root, validly formatted but unsigned) fails.
    const saved = JSON.parse(await readFile(proofFile, 'utf8'));
    saved.consistency.root1 = `${saved.consistency.root1[0] === '0' ? '1' : '0'}${saved.consistency.root1.slice(1)}`;
    const forged = join(work, 'forged.proof.json');
    await writeFile(forged, JSON.stringify(saved));
    const bad = captureIo();
    expect(await run(['audit', 'verify-proof', forged, '--public-key', publicKeyFile, '--json'], bad)).toBe(
      1,
    );
    expect(JSON.parse(bad.out).consistency).toMatchObject({
      ok: false,
      reason: 'the proof names roots the checkpoints do not sign',
    });

    // An inclusion proof against an older checkpoint than the one you hold: prove again with --since.
    const stale = captureIo();
    const oldProof = join(work, 'old-entry.proof.json');
    const entryId = (await entries()).at(-1)?.id as string; // the oldest: in every checkpoint
    const p2 = captureIo(env());
    expect(await run(['audit', 'prove', entryId, '--out', oldProof], p2), p2.err).toBe(0);
    expect(
      await run(
        ['audit', 'verify-proof', oldProof, '--public-key', publicKeyFile, '--checkpoint', oldFile],
        stale,
      ),
    ).toBe(1);
    expect(stale.err).toContain('prove again with --since');
  });

  it('prove: exit 2 for an unknown entry and without an id or --since', async () => {
    const unknown = captureIo(env());
    expect(
      await run(['audit', 'prove', '01ARZ3NDEKTSV4RRFFQ69G5FAV', '--out', join(work, 'x.json')], unknown),
    ).toBe(2);
    expect(unknown.err).toContain('404');
    const nothing = captureIo(env());
    expect(await run(['audit', 'prove'], nothing)).toBe(2);
    expect(nothing.err).toContain('an entry ID or --since FILE is required');
  });
});

// Last: it moves the server's policies past the versions the fixture copies above use.
describe('agentgov policy apply ordering', () => {
  it('a parent tightened below its child is retried after the child is tightened (children first)', async () => {
    const dir = await copyFixture('tighten');
    await rm(join(dir, 'policies/enterprise-actions.yaml'));
    const eng = (version: string, meeting: number) =>
      `scope: org\nscopeId: eng\ndomain: agent-to-agent\nname: eng exchange rules\nversion: ${version}\ncontent:\n  max_rounds:\n    information_query: 1\n    meeting_scheduling: ${meeting}\n`;
    await writeFile(join(dir, 'policies/org-eng-a2a.yaml'), eng('1.2.0', 2));
    const first = captureIo(env());
    expect(await run(['policy', 'apply', dir], first), first.err).toBe(0);

    // Now both tighten meeting_scheduling to 1: enterprise first would leave eng's 2 above it.
    const enterprise = join(dir, 'policies/enterprise-a2a.yaml');
    await writeFile(
      enterprise,
      (await readFile(enterprise, 'utf8'))
        .replace('version: 1.0.0', 'version: 1.1.0')
        .replace('meeting_scheduling: 2', 'meeting_scheduling: 1'),
    );
    await writeFile(join(dir, 'policies/org-eng-a2a.yaml'), eng('1.3.0', 1));
    const io = captureIo(env());
    expect(await run(['policy', 'apply', dir, '--json'], io), io.out).toBe(0);
    const report = JSON.parse(io.out);
    expect(report.ok).toBe(true);
    expect(report.results.map((r: { name: string; ok: boolean }) => [r.name, r.ok])).toEqual([
      ['enterprise exchange rules', true],
      ['eng exchange rules', true],
    ]);
    // What other tests left on the server shows as removals; DIR itself is applied.
    const diff = captureIo(env());
    await run(['policy', 'diff', dir, '--json'], diff);
    expect(
      JSON.parse(diff.out)
        .items.filter((i: { action: string }) => i.action !== 'remove')
        .map((i: { action: string }) => i.action),
    ).toEqual(['unchanged', 'unchanged']);
  });
});
