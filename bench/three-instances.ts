/**
 * `pnpm tsx bench/three-instances.ts`: three reference-server processes (`src/main.ts`, as
 * `pnpm start` runs it) on one PostgreSQL database and one Redis, behind HAProxy (Debian's
 * `haproxy`, round-robin; not installed by `pnpm install`: `apt-get install -y haproxy`; CI does
 * not run this script). Mixed load — audited decisions, policy reads, audit reads, policy
 * creations over 12 tenants — from `BENCH_SCALE_CONNECTIONS` closed-loop clients (default 24) for
 * `BENCH_SCALE_SECONDS` (default 60), first through a frontend with ONE of the processes behind it,
 * then through a frontend with all THREE round-robin, then through one with all three by a hash of
 * the caller's token (tenant affinity: one tenant's audit appends come from one process, so its
 * group commit holds; see bench/chain-ceiling.bench.ts) — fresh tenants each phase, so no phase
 * starts with another's rate-limit windows. Audit reads and creations stay under each tenant's limits
 * (100 and 50 per phase, against the spec's 120 and 60 a minute), so any 429 there is a finding.
 *
 * Checks at the end (exit code 1 when one fails):
 * - rate limits exact across instances: 70 policy creations of one fresh tenant through the
 *   three-instance frontend get exactly 60 × 201 and 10 × 429 (`policy_mutations`, 60 a minute,
 *   counted in Redis by every process);
 * - every acknowledged write present: each 201's policy id is in the database, and the tenant's
 *   `policy_change` audit entries are at least as many;
 * - every tenant's chain verifies (`verifyTenant`, deep, with the dev keys the processes share);
 * - no 5xx and no failed request during the load; the three backends each served about a third.
 *
 * Database: BENCH_DATABASE_URL, else TEST_DATABASE_URL, else the local default (a fresh database
 * on that server, dropped afterwards). Redis: TEST_REDIS_URL, else redis://127.0.0.1:6379.
 */
import { randomBytes } from 'node:crypto';
import { verifyTenant } from '@agentgov/audit';
import { EnvSecretStore } from '@agentgov/core';
import { openStore, sql } from '@agentgov/store-kysely';
import { type DevAccount, startDevIssuer } from '../examples/server/src/dev-issuer';
import { benchDatabaseUrl, percentile, adminSql as serverSql } from './lib';
import { type Child, startHaproxy, startServer } from './three-instances-processes';

const SECONDS = Number(process.env.BENCH_SCALE_SECONDS ?? 60);
const CONNECTIONS = Number(process.env.BENCH_SCALE_CONNECTIONS ?? 24);
const TENANTS = 12;
const CREATIONS_PER_TENANT = 50; // per phase, under policy_mutations (60 a minute)
const AUDIT_READS_PER_TENANT = 100; // per phase, under audit_queries (120 a minute)
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

interface Phase {
  label: string;
  requests: number;
  seconds: number;
  latencies: number[];
  statuses: Map<number, number>;
  backends: Map<string, number>;
  /** Acknowledged policy ids per tenant. */
  created: Map<string, string[]>;
}

const decisionBody = JSON.stringify({
  domain: 'integrations',
  input: {
    action: 'tracker_update',
    context: { targetSystem: 'tracker', additional: { source: 'work-tracking' } },
  },
});

const policyBody = (tenant: string, name: string) =>
  JSON.stringify({
    scope: 'enterprise',
    scopeId: tenant,
    domain: 'features',
    name,
    version: '1.0.0',
    content: '{}',
    changeReason: 'three-instance load',
  });

/** CONNECTIONS closed-loop clients for SECONDS through `base`, over `tenants` (token by tenant). */
async function load(label: string, base: string, tokens: Map<string, string>): Promise<Phase> {
  const tenants = [...tokens.keys()];
  const phase: Phase = {
    label,
    requests: 0,
    seconds: 0,
    latencies: [],
    statuses: new Map(),
    backends: new Map(),
    created: new Map(tenants.map((t) => [t, []])),
  };
  const budget = new Map(
    tenants.map((t) => [t, { creations: CREATIONS_PER_TENANT, audit: AUDIT_READS_PER_TENANT }]),
  );
  const count = <K>(m: Map<K, number>, k: K) => m.set(k, (m.get(k) ?? 0) + 1);
  const start = performance.now();
  const end = start + SECONDS * 1000;
  let names = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, w) => {
      for (let k = 0; performance.now() < end; k++) {
        const tenant = tenants[(w + k) % tenants.length] as string;
        const left = budget.get(tenant) as { creations: number; audit: number };
        let kind = k % 4;
        if (kind === 2 && left.audit-- <= 0) kind = 0;
        if (kind === 3 && left.creations-- <= 0) kind = 1;
        const init: RequestInit =
          kind === 0
            ? { method: 'POST', body: decisionBody }
            : kind === 3
              ? { method: 'POST', body: policyBody(tenant, `p${names++}`) }
              : {};
        const path = kind === 0 ? '/decisions' : kind === 2 ? '/audit?page_size=5' : '/policies';
        const t = performance.now();
        try {
          const res = await fetch(`${base}/api/v1${path}`, {
            ...init,
            headers: {
              authorization: `Bearer ${tokens.get(tenant)}`,
              'content-type': 'application/json',
            },
            signal: AbortSignal.timeout(30_000),
          });
          const body = await res.text();
          phase.latencies.push(performance.now() - t);
          count(phase.statuses, res.status);
          count(phase.backends, res.headers.get('x-backend') ?? '?');
          if (kind === 3 && res.status === 201)
            phase.created.get(tenant)?.push((JSON.parse(body) as { id: string }).id);
        } catch {
          count(phase.statuses, 0);
        }
      }
    }),
  );
  phase.seconds = (performance.now() - start) / 1000;
  phase.requests = [...phase.statuses.values()].reduce((a, b) => a + b, 0);
  return phase;
}

const summary = (p: Phase) =>
  `${p.label}: ${p.requests} requests in ${p.seconds.toFixed(1)} s = ${(p.requests / p.seconds).toFixed(1)} req/s, ` +
  `p50 ${percentile(p.latencies, 50).toFixed(1)} ms, p99 ${percentile(p.latencies, 99).toFixed(1)} ms; ` +
  `statuses ${JSON.stringify(Object.fromEntries(p.statuses))}; backends ${JSON.stringify(Object.fromEntries(p.backends))}; ` +
  `policies created ${[...p.created.values()].reduce((a, l) => a + l.length, 0)}`;

/** Policy ids, `policy_change` entries and the chain verdict of `tenant` in the database. */
async function inspect(databaseUrl: string, tenants: string[]) {
  const store = await openStore({ database: databaseUrl, migrate: false });
  try {
    const { rows } = await sql<{
      ref: string;
      value: string;
    }>`SELECT ref, value FROM agentgov_dev_secrets`.execute(store.db);
    const secrets = new EnvSecretStore(
      Object.fromEntries(rows.map((r) => [EnvSecretStore.variableName(r.ref), r.value])),
    );
    const seen = new Map<
      string,
      { ids: Set<string>; policyChanges: number; chainOk: boolean; checked: number }
    >();
    for (const tenant of tenants) {
      const report = await verifyTenant(store.audit, tenant, { secrets });
      const { total } = await store.audit.query(
        tenant,
        { actionType: 'policy_change' },
        { offset: 0, limit: 1 },
      );
      seen.set(tenant, {
        ids: new Set((await store.policies.list(tenant)).map((p) => p.id)),
        policyChanges: total,
        chainOk: report.ok && report.firstBreak === undefined,
        checked: report.checked,
      });
    }
    return seen;
  } finally {
    await store.close();
  }
}

async function main(): Promise<number> {
  const server = benchDatabaseUrl().url;
  const name = `agentgov_three_${randomBytes(4).toString('hex')}`;
  const databaseUrl = Object.assign(new URL(server), { pathname: `/${name}` }).href;
  const adminSql = (text: string) => serverSql(server, text);
  const suffix = randomBytes(3).toString('hex');
  const phaseTenants = (p: string) => Array.from({ length: TENANTS }, (_, i) => `${p}${i}-${suffix}`);
  const tenantsOne = phaseTenants('one');
  const tenantsThree = phaseTenants('three');
  const tenantsAffine = phaseTenants('affine');
  const limited = `limited-${suffix}`;
  const all = [...tenantsOne, ...tenantsThree, ...tenantsAffine, limited];
  const account = (tenant: string): DevAccount => ({
    sub: `admin-${tenant}`,
    email: `admin@${tenant}.example`,
    roles: ['enterprise_admin'],
    tenant_id: tenant,
    org_unit: 'eng',
  });
  await adminSql(`CREATE DATABASE ${name}`);
  const issuer = await startDevIssuer({
    clientId: 'three',
    clientSecret: 'three-secret',
    redirectUri: 'http://127.0.0.1:9/callback',
    accounts: all.map(account),
  });
  const servers: Child[] = [];
  let lb: Awaited<ReturnType<typeof startHaproxy>> | undefined;
  try {
    const env = {
      DATABASE_URL: databaseUrl,
      REDIS_URL,
      PORT: '0',
      OIDC_ISSUER: issuer.issuer,
      OIDC_CLIENT_ID: issuer.clientId,
      OIDC_CLIENT_SECRET: issuer.clientSecret,
      OIDC_REDIRECT_URI: issuer.redirectUri,
      OPA_URL: '',
      AGENTGOV_LOG_LEVEL: 'warn',
    };
    for (let i = 0; i < 3; i++) servers.push(await startServer(env)); // the first migrates
    lb = await startHaproxy(servers.map((s) => s.url));
    console.log(
      `3 processes (${servers.map((s) => s.url).join(', ')}) behind HAProxy; ${CONNECTIONS} clients, ${SECONDS} s per phase`,
    );
    const tokens = new Map(
      await Promise.all(all.map(async (t) => [t, await issuer.mintIdToken(`admin-${t}`, 3600)] as const)),
    );
    const pick = (ts: string[]) => new Map(ts.map((t) => [t, tokens.get(t) as string]));

    // Warm-up (JIT, pools) of all three processes: unlimited routes only, on the limited tenant.
    for (let i = 0; i < 300; i++) {
      const res = await fetch(`${lb.three}/api/v1/${i % 2 ? 'policies' : 'decisions'}`, {
        ...(i % 2 ? {} : { method: 'POST', body: decisionBody }),
        headers: { authorization: `Bearer ${tokens.get(limited)}`, 'content-type': 'application/json' },
      });
      await res.arrayBuffer();
    }

    const one = await load('1 instance ', lb.one, pick(tenantsOne));
    console.log(summary(one));
    const three = await load('3 instances, round-robin', lb.three, pick(tenantsThree));
    console.log(summary(three));
    const affine = await load('3 instances, tenant-affine', lb.affine, pick(tenantsAffine));
    console.log(summary(affine));
    const rate = (p: Phase) => p.requests / p.seconds;
    console.log(
      `capacity vs 1 instance: 3 round-robin ${(rate(three) / rate(one)).toFixed(2)}x, 3 tenant-affine ${(rate(affine) / rate(one)).toFixed(2)}x req/s`,
    );

    const failures: string[] = [];
    // Rate limits exact across the instances.
    const statuses: number[] = [];
    const limitedIds: string[] = [];
    for (let i = 0; i < 70; i++) {
      const res = await fetch(`${lb.three}/api/v1/policies`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.get(limited)}`, 'content-type': 'application/json' },
        body: policyBody(limited, `m${i}`),
      });
      const body = await res.text();
      statuses.push(res.status);
      if (res.status === 201) limitedIds.push((JSON.parse(body) as { id: string }).id);
    }
    const accepted = statuses.filter((s) => s === 201).length;
    const limitedCount = statuses.filter((s) => s === 429).length;
    console.log(
      `rate limit through the balancer: ${accepted} × 201, ${limitedCount} × 429 of 70 (limit 60 a minute)`,
    );
    if (accepted !== 60 || limitedCount !== 10)
      failures.push(`rate limit: ${accepted} × 201, ${limitedCount} × 429`);

    for (const p of [one, three, affine]) {
      const bad = [...p.statuses.keys()].filter((s) => s === 0 || s >= 400);
      if (bad.length > 0)
        failures.push(`${p.label}: statuses ${JSON.stringify(Object.fromEntries(p.statuses))}`);
    }
    const seen = await inspect(databaseUrl, all);
    let writes = 0;
    let entries = 0;
    for (const created of [one.created, three.created, affine.created, new Map([[limited, limitedIds]])]) {
      for (const [tenant, ids] of created) {
        const s = seen.get(tenant);
        const missing = ids.filter((id) => !s?.ids.has(id));
        writes += ids.length;
        if (missing.length > 0) failures.push(`${tenant}: ${missing.length} acknowledged policies missing`);
        if ((s?.policyChanges ?? 0) < ids.length)
          failures.push(`${tenant}: ${s?.policyChanges} policy_change entries for ${ids.length} policies`);
      }
    }
    for (const [tenant, s] of seen) {
      entries += s.checked;
      if (!s.chainOk) failures.push(`${tenant}: chain does not verify`);
    }
    console.log(
      `acknowledged policy writes checked: ${writes}; chains verified: ${seen.size} tenants, ${entries} entries`,
    );
    for (const f of failures) console.error(`FAILED ${f}`);
    console.log(failures.length === 0 ? 'all checks passed' : `${failures.length} checks failed`);
    return failures.length === 0 ? 0 : 1;
  } finally {
    await lb?.stop();
    for (const s of servers) await s.stop();
    await issuer.close();
    await adminSql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
  }
}

process.exitCode = await main();
