import {
  InMemoryAuditSink,
  InMemoryOrgDirectory,
  InMemoryPolicyStore,
  ManualClock,
  type Policy,
  type Role,
  type ValidationError,
} from '@agentgov/core';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { PolicyService, type Principal } from '../src/index';

const directory = () =>
  InMemoryOrgDirectory.fromDefinitions({
    tenant: 'acme',
    orgs: {
      eng: { teams: { platform: ['alice', 'bob'] }, users: ['dana'] },
      sales: { teams: { emea: ['carol'] } },
    },
  });

function setup(options: { acceptUnseenOrgs?: boolean } = {}) {
  const store = new InMemoryPolicyStore();
  const audit = new InMemoryAuditSink();
  const clock = new ManualClock('2025-01-01T00:00:00Z');
  const changes: string[] = [];
  const dir = directory();
  const service = new PolicyService({
    store,
    directory: dir,
    audit,
    clock,
    onChange: (tenantId, p) => changes.push(`${tenantId}:${p.id}`),
    ...options,
  });
  return { store, audit, clock, service, changes, dir };
}

const fieldOf = (r: { _unsafeUnwrapErr(): unknown }): string =>
  (r._unsafeUnwrapErr() as ValidationError).field;

const who = (userId: string, roles: Role[], orgUnit?: string, team?: string): Principal => ({
  userId,
  tenantId: 'acme',
  roles,
  ...(orgUnit ? { orgUnit } : {}),
  ...(team ? { team } : {}),
});
const root = who('root', ['enterprise_admin']);
const engAdmin = who('erin', ['org_admin'], 'eng');
const platformLead = who('alice', ['team_lead', 'user'], 'eng', 'platform');
const bob = who('bob', ['user'], 'eng', 'platform');
const carol = who('carol', ['user'], 'sales', 'emea');

const body = (scope: string, scopeId: string, content: string, domain = 'agent-to-agent') => ({
  scope,
  scopeId,
  domain,
  name: `${domain} for ${scope} ${scopeId}`,
  version: '1.0.0',
  content,
  changeReason: 'because',
});

const create = async (s: PolicyService, p: Principal, b: ReturnType<typeof body>): Promise<Policy> =>
  (await s.create(p, b))._unsafeUnwrap();

describe('PolicyService.create', () => {
  it('validates, stores as active and writes a policy_change audit entry', async () => {
    const { service, audit, store, changes } = setup();
    const p = await create(service, root, body('enterprise', 'acme', 'enabled: true'));
    expect(p).toMatchObject({
      status: 'active',
      tenantId: 'acme',
      createdBy: 'root',
      createdAt: '2025-01-01T00:00:00.000Z',
    });
    expect(await store.get('acme', p.id)).toEqual(p);
    expect(audit.entries).toHaveLength(1);
    expect(audit.entries[0]).toMatchObject({
      tenantId: 'acme',
      userId: 'root',
      actionType: 'policy_change',
      policyApplied: p.id,
      policyResult: 'allow',
      outcome: 'success',
      actionDetail: {
        operation: 'create',
        policyId: p.id,
        scope: 'enterprise',
        domain: 'agent-to-agent',
        changeReason: 'because',
      },
    });
    expect(changes).toEqual([`acme:${p.id}`]);
  });

  it('returns POLICY_HIERARCHY_VIOLATION with every violation in detail and writes nothing', async () => {
    const { service, audit, store } = setup();
    await create(
      service,
      root,
      body(
        'enterprise',
        'acme',
        'max_classification_shared: confidential\nmax_rounds: {information_query: 2}',
      ),
    );
    const r = await service.create(
      engAdmin,
      body('org', 'eng', 'max_classification_shared: restricted\nmax_rounds: {information_query: 5}'),
    );
    const e = r._unsafeUnwrapErr();
    expect(e.code).toBe('POLICY_HIERARCHY_VIOLATION');
    expect(e.status).toBe(400);
    expect(e.detail).toEqual([
      expect.objectContaining({
        key: 'max_classification_shared',
        scope: 'org',
        scopeId: 'eng',
        value: 'restricted',
        parentScope: 'enterprise',
        parentValue: 'confidential',
      }),
      expect.objectContaining({ key: 'max_rounds.information_query', value: 5, parentValue: 2 }),
    ]);
    expect(await store.count('acme')).toBe(1);
    expect(audit.entries).toHaveLength(1);
  });

  it("a team's deny list states only what it adds (issue 28); a later enterprise deny list keeps it valid", async () => {
    const { service } = setup();
    await create(service, root, body('enterprise', 'acme', 'blocked: [wire_money]', 'actions'));
    const team = await service.create(
      platformLead,
      body('team', 'platform', 'blocked: [search_docs]', 'actions'),
    );
    expect(team.isOk(), JSON.stringify(team.isErr() ? team.error.detail : undefined)).toBe(true);
    // the enterprise blocks more later: the team's policy, which does not repeat it, stays valid
    expect(
      (
        await service.create(root, body('enterprise', 'acme', 'blocked: [delete_repository]', 'actions'))
      ).isOk(),
    ).toBe(true);
    // loosening is still refused: the team cannot allow what the enterprise's allow-list does not
    await create(service, root, body('enterprise', 'acme', 'allowed_providers: [anthropic]', 'models'));
    const e = (
      await service.create(
        platformLead,
        body('team', 'platform', 'allowed_providers: [anthropic, openai]', 'models'),
      )
    )._unsafeUnwrapErr();
    expect(e.code).toBe('POLICY_HIERARCHY_VIOLATION');
  });

  it('refuses a new ancestor policy that would make an existing descendant invalid', async () => {
    const { service } = setup();
    const team = await create(
      service,
      platformLead,
      body('team', 'platform', 'max_rounds: {information_query: 3}'),
    );
    const e = (
      await service.create(root, body('enterprise', 'acme', 'max_rounds: {information_query: 1}'))
    )._unsafeUnwrapErr();
    expect(e.code).toBe('POLICY_HIERARCHY_VIOLATION');
    expect(e.detail).toEqual([
      expect.objectContaining({
        policyId: team.id,
        scope: 'team',
        parentScope: 'enterprise',
        parentValue: 1,
      }),
    ]);
  });

  it('rejects bad bodies with typed errors', async () => {
    const { service } = setup();
    const bad = async (b: unknown) => (await service.create(root, b))._unsafeUnwrapErr() as ValidationError;
    expect((await bad({ ...body('enterprise', 'acme', ''), version: '1.0' })).field).toBe('version');
    expect((await bad({ ...body('enterprise', 'acme', 'x: 1') })).message).toContain(
      "unknown key 'x' in agent-to-agent policy",
    );
    expect((await bad({ ...body('galaxy', 'acme', 'enabled: true') })).field).toBe('scope');
    expect((await bad({ ...body('enterprise', 'acme', 'enabled: true'), domain: 'weather' })).field).toBe(
      'domain',
    );
    expect((await bad({ ...body('enterprise', 'acme', 'enabled: true'), name: 'n'.repeat(256) })).field).toBe(
      'name',
    );
    expect((await bad({ ...body('enterprise', 'acme', 'enabled: [') })).message).toContain('malformed YAML');
    // A blocked tool is a lower-case name, as the names a decision compares it with: a mixed-case
    // entry could never match and would block nothing, silently.
    const mixed = await bad(body('enterprise', 'acme', 'blocked: [files__Wipe_Disk]', 'actions'));
    expect(mixed).toMatchObject({ field: 'content.blocked.0' });
    expect(mixed.message).toContain('lower-case name');
    const missing = await bad({ scope: 'enterprise' });
    expect(missing.code).toBe('missing_type');
  });

  it('acceptUnseenOrgs (a directory learned from sign-ins): an org not seen yet is a target under the enterprise; teams and users are still checked', async () => {
    const { service } = setup({ acceptUnseenOrgs: true });
    expect(
      (await service.create(root, body('enterprise', 'acme', 'max_classification_shared: internal'))).isOk(),
    ).toBe(true);
    const hr = await service.create(root, body('org', 'hr', 'max_classification_shared: public'));
    expect(hr._unsafeUnwrap()).toMatchObject({ scope: 'org', scopeId: 'hr', status: 'active' });
    // the hierarchy still holds for it: it may only restrict the enterprise
    const wider = await service.create(root, body('org', 'finance', 'max_classification_shared: restricted'));
    expect(wider._unsafeUnwrapErr().code).toBe('POLICY_HIERARCHY_VIOLATION');
    // an org_admin of another org may not write it
    expect(
      (await service.create(engAdmin, body('org', 'legal', 'enabled: true')))._unsafeUnwrapErr().code,
    ).toBe('forbidden');
    expect(
      (await service.create(root, body('team', 'ghost', 'enabled: true')))._unsafeUnwrapErr().message,
    ).toContain("unknown team 'ghost'");
  });

  it('checks the target: enterprise scopeId is the tenant; org/team/user must exist in the directory', async () => {
    const { service } = setup();
    expect(
      (await service.create(root, body('enterprise', 'globex', 'enabled: true')))._unsafeUnwrapErr().message,
    ).toContain("must be the tenant id 'acme'");
    expect(
      (await service.create(root, body('team', 'ghost', 'enabled: true')))._unsafeUnwrapErr().message,
    ).toContain("unknown team 'ghost'");
    expect(
      (await service.create(root, body('user', 'mallory', 'enabled: true')))._unsafeUnwrapErr().code,
    ).toBe('invalid_type');
    expect((await service.create(root, body('org', 'hr', 'enabled: true')))._unsafeUnwrapErr().code).toBe(
      'invalid_type',
    );
  });

  it('enforces writes by scope (RBAC)', async () => {
    const { service } = setup();
    const forbidden = async (p: Principal, b: ReturnType<typeof body>) =>
      (await service.create(p, b))._unsafeUnwrapErr().code;
    expect(await forbidden(engAdmin, body('enterprise', 'acme', 'enabled: true'))).toBe('forbidden');
    expect(await forbidden(engAdmin, body('org', 'sales', 'enabled: true'))).toBe('forbidden');
    expect(await forbidden(engAdmin, body('team', 'emea', 'enabled: true'))).toBe('forbidden');
    expect(await forbidden(platformLead, body('org', 'eng', 'enabled: true'))).toBe('forbidden');
    expect(await forbidden(platformLead, body('user', 'dana', 'enabled: true'))).toBe('forbidden');
    expect(await forbidden(bob, body('user', 'alice', 'enabled: true'))).toBe('forbidden');
    expect(await forbidden(bob, body('team', 'platform', 'enabled: true'))).toBe('forbidden');
    await create(service, engAdmin, body('team', 'platform', 'enabled: true'));
    await create(service, platformLead, body('user', 'bob', 'enabled: true'));
    await create(service, bob, body('user', 'bob', 'enabled: false'));
  });
});

describe('PolicyService.update', () => {
  it('updates content and changeReason, re-validates, and audits', async () => {
    const { service, audit, clock } = setup();
    await create(service, root, body('enterprise', 'acme', 'max_rounds: {information_query: 3}'));
    const org = await create(service, engAdmin, body('org', 'eng', 'max_rounds: {information_query: 2}'));
    clock.advance(1000);
    const u = (
      await service.update(engAdmin, org.id, {
        content: 'max_rounds: {information_query: 1}',
        changeReason: 'tighter',
        version: '1.1.0',
      })
    )._unsafeUnwrap();
    expect(u).toMatchObject({
      version: '1.1.0',
      changeReason: 'tighter',
      updatedAt: '2025-01-01T00:00:01.000Z',
      createdAt: org.createdAt,
    });
    expect(audit.entries.at(-1)?.actionDetail).toMatchObject({
      operation: 'update',
      previousVersion: '1.0.0',
      contentChanged: true,
    });
    const v = (
      await service.update(engAdmin, org.id, {
        content: 'max_rounds: {information_query: 4}',
        changeReason: 'looser',
      })
    )._unsafeUnwrapErr();
    expect(v.code).toBe('POLICY_HIERARCHY_VIOLATION');
  });

  it('refuses a change that would make descendants invalid, listing each of them', async () => {
    const { service, store } = setup();
    const ent = await create(
      service,
      root,
      body('enterprise', 'acme', 'max_classification_shared: confidential'),
    );
    const team = await create(
      service,
      platformLead,
      body('team', 'platform', 'max_classification_shared: confidential'),
    );
    const user = await create(service, bob, body('user', 'bob', 'max_classification_shared: internal'));
    const e = (
      await service.update(root, ent.id, {
        content: 'max_classification_shared: public',
        changeReason: 'lockdown',
      })
    )._unsafeUnwrapErr();
    expect(e.code).toBe('POLICY_HIERARCHY_VIOLATION');
    expect(e.message).toContain('descendant');
    expect((e.detail as { policyId: string }[]).map((d) => d.policyId).sort()).toEqual(
      [team.id, user.id].sort(),
    );
    expect((await store.get('acme', ent.id))?.content).toBe('max_classification_shared: confidential');
  });

  it('checks the semantic version: valid and never lower', async () => {
    const { service } = setup();
    const p = await create(service, root, {
      ...body('enterprise', 'acme', 'enabled: true'),
      version: '2.1.0',
    });
    expect(
      fieldOf(
        await service.update(root, p.id, { content: 'enabled: true', changeReason: 'x', version: '2.0.9' }),
      ),
    ).toBe('version');
    expect(
      fieldOf(
        await service.update(root, p.id, { content: 'enabled: true', changeReason: 'x', version: 'v3' }),
      ),
    ).toBe('version');
    expect(
      (
        await service.update(root, p.id, {
          content: 'enabled: true',
          changeReason: 'x',
          version: '2.1.1-rc.1',
        })
      )._unsafeUnwrap().version,
    ).toBe('2.1.1-rc.1');
  });

  it('needs a changeReason and a writable, visible policy', async () => {
    const { service } = setup();
    const p = await create(service, engAdmin, body('org', 'eng', 'enabled: true'));
    expect((await service.update(root, p.id, { content: 'enabled: false' }))._unsafeUnwrapErr().code).toBe(
      'missing_type',
    );
    expect(
      (await service.update(bob, p.id, { content: 'enabled: false', changeReason: 'x' }))._unsafeUnwrapErr()
        .code,
    ).toBe('forbidden');
    expect(
      (await service.update(carol, p.id, { content: 'enabled: false', changeReason: 'x' }))._unsafeUnwrapErr()
        .code,
    ).toBe('NOT_FOUND');
    expect(
      (
        await service.update(root, '00000000-0000-4000-8000-000000000000', {
          content: 'enabled: false',
          changeReason: 'x',
        })
      )._unsafeUnwrapErr().code,
    ).toBe('NOT_FOUND');
  });
});

describe('PolicyService.deprecate, get, list', () => {
  it('deprecates on delete, keeps the record, and ignores it for validation', async () => {
    const { service, store, audit } = setup();
    const ent = await create(service, root, body('enterprise', 'acme', 'max_rounds: {information_query: 1}'));
    const d = (await service.deprecate(root, ent.id))._unsafeUnwrap();
    expect(d.status).toBe('deprecated');
    expect((await store.get('acme', ent.id))?.status).toBe('deprecated');
    expect(audit.entries.at(-1)?.actionDetail).toMatchObject({
      operation: 'deprecate',
      status: 'deprecated',
    });
    // the deprecated limit no longer constrains children
    await create(service, engAdmin, body('org', 'eng', 'max_rounds: {information_query: 3}'));
    expect(fieldOf(await service.update(root, ent.id, { content: 'enabled: true', changeReason: 'x' }))).toBe(
      'status',
    );
  });

  it('scopes list and get by role', async () => {
    const { service } = setup();
    const ent = await create(service, root, body('enterprise', 'acme', 'enabled: true'));
    const eng = await create(service, root, body('org', 'eng', 'enabled: true'));
    const sales = await create(service, root, body('org', 'sales', 'enabled: true'));
    const platform = await create(service, root, body('team', 'platform', 'enabled: true'));
    const emea = await create(service, root, body('team', 'emea', 'enabled: true'));
    const bobs = await create(service, root, body('user', 'bob', 'enabled: true'));
    const danas = await create(service, root, body('user', 'dana', 'enabled: true'));
    const carols = await create(service, root, body('user', 'carol', 'enabled: true'));
    const ids = async (p: Principal, q?: unknown) =>
      (await service.list(p, q))
        ._unsafeUnwrap()
        .map((x) => x.id)
        .sort();
    const all = [ent, eng, sales, platform, emea, bobs, danas, carols].map((x) => x.id).sort();
    expect(await ids(root)).toEqual(all);
    expect(await ids(engAdmin)).toEqual([ent, eng, platform, bobs, danas].map((x) => x.id).sort());
    expect(await ids(platformLead)).toEqual([ent, eng, platform, bobs].map((x) => x.id).sort());
    expect(await ids(bob)).toEqual([ent, eng, platform, bobs].map((x) => x.id).sort());
    expect(await ids(carol)).toEqual([ent, sales, emea, carols].map((x) => x.id).sort());
    expect(await ids(root, { scope: 'team' })).toEqual([platform, emea].map((x) => x.id).sort());
    expect(await ids(root, { domain: 'models' })).toEqual([]);
    expect(fieldOf(await service.list(root, { scope: 'galaxy' }))).toBe('scope');
    expect((await service.get(carol, bobs.id))._unsafeUnwrapErr().code).toBe('NOT_FOUND');
    expect((await service.get(bob, bobs.id))._unsafeUnwrap().id).toBe(bobs.id);
    expect((await service.get({ ...root, tenantId: 'globex' }, ent.id))._unsafeUnwrapErr().code).toBe(
      'NOT_FOUND',
    );
  });

  it('get sees what list sees, asking the directory only what the answer needs', async () => {
    const { service, dir } = setup();
    const made = await Promise.all(
      [
        ['enterprise', 'acme'],
        ['org', 'eng'],
        ['org', 'sales'],
        ['team', 'platform'],
        ['team', 'emea'],
        ['user', 'bob'],
        ['user', 'dana'],
      ].map(([scope, id]) => create(service, root, body(scope as string, id as string, 'enabled: true'))),
    );
    const danaUser = who('dana', ['user'], 'eng');
    for (const p of [root, engAdmin, platformLead, bob, carol, danaUser]) {
      const listed = new Set((await service.list(p))._unsafeUnwrap().map((x) => x.id));
      for (const policy of made) {
        const got = await service.get(p, policy.id);
        expect(got.isOk(), `${p.userId} get ${policy.scope}:${policy.scopeId}`).toBe(listed.has(policy.id));
      }
    }
    const ancestry = vi.spyOn(dir, 'ancestry');
    const [ent, , sales, platform] = made as Policy[];
    (await service.get(root, (sales as Policy).id))._unsafeUnwrap();
    expect(ancestry).not.toHaveBeenCalled(); // enterprise_admin: no lookup
    (await service.get(bob, (ent as Policy).id))._unsafeUnwrap();
    expect(ancestry).toHaveBeenCalledTimes(1); // on the caller's own chain: the target's is not needed
    (await service.get(engAdmin, (platform as Policy).id))._unsafeUnwrap();
    expect(ancestry).toHaveBeenCalledTimes(3); // inside the org: own chain, then the target's
  });

  it('never throws on arbitrary bodies and never writes on a failed create', async () => {
    const { service, store } = setup();
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.anything(),
          fc.record({
            scope: fc.constantFrom('enterprise', 'org', 'team', 'user', 'x'),
            scopeId: fc.constantFrom('acme', 'eng', 'platform', 'bob', ''),
            domain: fc.constantFrom('agent-to-agent', 'models', 'audit', 'nope'),
            name: fc.string(),
            version: fc.constantFrom('1.0.0', '1', 'x'),
            content: fc.oneof(fc.string(), fc.constant('enabled: maybe'), fc.constant('retention_years: 0')),
            changeReason: fc.string(),
          }),
        ),
        async (b) => {
          const before = await store.count('acme');
          const r = await service.create(root, b);
          if (r.isErr()) {
            expect(r.error.status).toBeGreaterThanOrEqual(400);
            expect(r.error.status).toBeLessThan(500);
            expect(await store.count('acme')).toBe(before);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('reports an audit failure as a typed error', async () => {
    const store = new InMemoryPolicyStore();
    const service = new PolicyService({
      store,
      directory: directory(),
      // the in-memory sink rejects an entry whose userId is too long: a real failure path
      audit: new InMemoryAuditSink(),
    });
    const r = await service.create(
      { ...root, userId: 'u'.repeat(300) },
      body('enterprise', 'acme', 'enabled: true'),
    );
    expect(r._unsafeUnwrapErr().code).toBe('service_unavailable');
  });
});
