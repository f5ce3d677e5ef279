import {
  EnvSecretStore,
  InMemoryConnectorStore,
  InMemoryOrgDirectory,
  InMemorySecretStore,
  isReservedSecretRef,
  OrgDirectoryDefinitionSchema,
  type ScopeRef,
  tenantSecrets,
  UndoJournal,
} from '@agentgov/core';
import { describe, expect, it } from 'vitest';

const acme = {
  tenant: 'acme',
  orgs: {
    eng: { teams: { platform: ['alice', 'bob'] } },
    sales: { teams: { emea: ['carol'] } },
  },
};
const ent: ScopeRef = { scope: 'enterprise', scopeId: 'acme' };
const org = (scopeId: string): ScopeRef => ({ scope: 'org', scopeId });
const team = (scopeId: string): ScopeRef => ({ scope: 'team', scopeId });
const user = (scopeId: string): ScopeRef => ({ scope: 'user', scopeId });

describe('InMemoryOrgDirectory.fromDefinitions (the acme example)', () => {
  const dir = InMemoryOrgDirectory.fromDefinitions(acme);

  it('ancestry of users, teams and orgs', async () => {
    expect(await dir.ancestry('acme', user('alice'))).toEqual([
      ent,
      org('eng'),
      team('platform'),
      user('alice'),
    ]);
    expect(await dir.ancestry('acme', user('bob'))).toEqual([ent, org('eng'), team('platform'), user('bob')]);
    expect(await dir.ancestry('acme', user('carol'))).toEqual([
      ent,
      org('sales'),
      team('emea'),
      user('carol'),
    ]);
    expect(await dir.ancestry('acme', team('emea'))).toEqual([ent, org('sales'), team('emea')]);
    expect(await dir.ancestry('acme', org('eng'))).toEqual([ent, org('eng')]);
    expect(await dir.ancestry('acme', ent)).toEqual([ent]);
  });

  it('unknown nodes are placed directly under the enterprise', async () => {
    expect(await dir.ancestry('acme', user('mallory'))).toEqual([ent, user('mallory')]);
    expect(await dir.ancestry('acme', team('apac'))).toEqual([ent, team('apac')]);
    expect(await dir.ancestry('acme', org('legal'))).toEqual([ent, org('legal')]);
  });

  it('children in sorted order', async () => {
    expect(await dir.children('acme', ent)).toEqual([org('eng'), org('sales')]);
    expect(await dir.children('acme', org('eng'))).toEqual([team('platform')]);
    expect(await dir.children('acme', team('platform'))).toEqual([user('alice'), user('bob')]);
    expect(await dir.children('acme', team('emea'))).toEqual([user('carol')]);
    expect(await dir.children('acme', user('alice'))).toEqual([]);
    expect(await dir.children('globex', { scope: 'enterprise', scopeId: 'globex' })).toEqual([]);
    expect(await dir.children('acme', { scope: 'enterprise', scopeId: 'globex' })).toEqual([]);
  });

  it('users of the tenant, an org, a team', async () => {
    expect(await dir.users('acme')).toEqual(['alice', 'bob', 'carol']);
    expect(await dir.users('acme', org('eng'))).toEqual(['alice', 'bob']);
    expect(await dir.users('acme', org('sales'))).toEqual(['carol']);
    expect(await dir.users('acme', team('platform'))).toEqual(['alice', 'bob']);
    expect(await dir.users('acme', user('carol'))).toEqual(['carol']);
    expect(await dir.users('globex')).toEqual([]);
  });

  it('place learns users from claims on top of the definition', async () => {
    const d = InMemoryOrgDirectory.fromDefinitions(acme);
    await d.place('acme', 'dave', { team: 'platform' });
    await d.place('acme', 'erin', { orgUnit: 'sales' });
    await d.place('acme', 'frank', { orgUnit: 'legal', team: 'contracts' });
    expect(await d.ancestry('acme', user('dave'))).toEqual([ent, org('eng'), team('platform'), user('dave')]);
    expect(await d.ancestry('acme', user('erin'))).toEqual([ent, org('sales'), user('erin')]);
    expect(await d.ancestry('acme', user('frank'))).toEqual([
      ent,
      org('legal'),
      team('contracts'),
      user('frank'),
    ]);
    expect(await d.children('acme', ent)).toEqual([org('eng'), org('legal'), org('sales')]);
    expect(await d.children('acme', org('sales'))).toEqual([team('emea'), user('erin')]);
    expect(await d.users('acme', org('eng'))).toEqual(['alice', 'bob', 'dave']);
  });

  it('several definitions, org members without a team, empty and null teams', async () => {
    const d = InMemoryOrgDirectory.fromDefinitions(acme, {
      tenant: 'globex',
      orgs: { research: { teams: { ml: ['alice'], empty: null }, users: ['zoe'] }, ops: null },
    });
    expect(await d.ancestry('globex', user('alice'))).toEqual([
      { scope: 'enterprise', scopeId: 'globex' },
      org('research'),
      team('ml'),
      user('alice'),
    ]);
    expect(await d.ancestry('globex', user('zoe'))).toEqual([
      { scope: 'enterprise', scopeId: 'globex' },
      org('research'),
      user('zoe'),
    ]);
    expect(await d.children('globex', org('research'))).toEqual([team('empty'), team('ml'), user('zoe')]);
    expect(await d.children('globex', { scope: 'enterprise', scopeId: 'globex' })).toEqual([
      org('ops'),
      org('research'),
    ]);
    expect(await d.ancestry('acme', user('alice'))).toEqual([
      ent,
      org('eng'),
      team('platform'),
      user('alice'),
    ]);
  });

  it('rejects malformed definitions', () => {
    expect(OrgDirectoryDefinitionSchema.safeParse({ orgs: {} }).success).toBe(false);
    expect(
      OrgDirectoryDefinitionSchema.safeParse({ tenant: 'a', orgs: { eng: { teams: { p: 'alice' } } } })
        .success,
    ).toBe(false);
    expect(OrgDirectoryDefinitionSchema.safeParse({ tenant: 'a', extra: 1 }).success).toBe(false);
    expect(() => InMemoryOrgDirectory.fromDefinitions({ tenant: '' })).toThrow();
  });
});

describe('EnvSecretStore variable naming', () => {
  it('upper-cases the reference and maps every other character to _', () => {
    expect(EnvSecretStore.variableName('db-password')).toBe('AGENTGOV_SECRET_DB_PASSWORD');
    expect(EnvSecretStore.variableName('DB_PASSWORD')).toBe('AGENTGOV_SECRET_DB_PASSWORD');
    expect(EnvSecretStore.variableName('tracker.token/v2')).toBe('AGENTGOV_SECRET_TRACKER_TOKEN_V2');
    expect(EnvSecretStore.variableName('clé')).toBe('AGENTGOV_SECRET_CL_');
    expect(EnvSecretStore.variableName('x', 'MY_')).toBe('MY_X');
  });

  it('reads the variable, treats empty as absent, and writes back', async () => {
    const env: Record<string, string | undefined> = {
      AGENTGOV_SECRET_DB_PASSWORD: 'hunter2',
      AGENTGOV_SECRET_EMPTY: '',
    };
    const store = new EnvSecretStore(env);
    expect(await store.get('db-password')).toBe('hunter2');
    expect(await store.get('DB_PASSWORD')).toBe('hunter2');
    expect(await store.get('empty')).toBeUndefined();
    expect(await store.get('missing')).toBeUndefined();
    await store.set('api-key', 'k');
    expect(env.AGENTGOV_SECRET_API_KEY).toBe('k');
    const prefixed = new EnvSecretStore({ APP_TOKEN: 't' }, 'APP_');
    expect(await prefixed.get('token')).toBe('t');
  });
});

describe('tenantSecrets: what a tenant’s configuration may read of the shared store', () => {
  it('never resolves the server’s own secrets (audit-…, agentgov-…), whatever the store holds; the rest as is', async () => {
    const store = new InMemorySecretStore({
      'audit-commitment-key': 'MASTER',
      'AGENTGOV-session': 'S',
      'tracker-token': 'T',
      'my-audit-token': 'M',
    });
    const view = tenantSecrets(store);
    expect(await view.get('audit-commitment-key')).toBeUndefined();
    expect(await view.get(' Audit-commitment-key')).toBeUndefined();
    expect(await view.get('AGENTGOV-session')).toBeUndefined();
    // Other separators name the same environment variable (EnvSecretStore): reserved too.
    for (const ref of ['audit_commitment_key', 'Audit.Commitment.Key', 'agentgov session'])
      expect(isReservedSecretRef(ref), ref).toBe(true);
    const env = tenantSecrets(new EnvSecretStore({ AGENTGOV_SECRET_AUDIT_COMMITMENT_KEY: 'MASTER' }));
    expect(await env.get('audit_commitment_key')).toBeUndefined();
    expect(await env.get('Audit.Commitment.Key')).toBeUndefined();
    expect(await view.get('tracker-token')).toBe('T');
    expect(await view.get('my-audit-token')).toBe('M');
    expect(isReservedSecretRef('audit-signing-key')).toBe(true);
    // A dotless ı upper-cases to I: the env store reads AUDIT_COMMITMENT_KEY (found in review).
    expect(isReservedSecretRef('aud\u0131t-commitment-key')).toBe(true);
    expect(await env.get('aud\u0131t-commitment-key')).toBeUndefined();
    expect(isReservedSecretRef('agentgov\u0131-x')).toBe(false);
    expect(isReservedSecretRef('tracker-token')).toBe(false);
  });
});

describe('tenantSecrets with the holders of references: each tenant reads only its own', () => {
  it('a reference resolves for the tenant holding it (a free one is bound to the first reader), never for another, never without a tenant', async () => {
    const store = new InMemorySecretStore({ 'mail-token': 'M', 'free-token': 'F' });
    const connectors = new InMemoryConnectorStore();
    expect(await connectors.bindSecretRefs('acme', ['mail-token'])).toEqual([]);
    const view = tenantSecrets(store, connectors);
    expect(await view.get('mail-token', { tenantId: 'acme' })).toBe('M');
    expect(await view.get('mail-token', { tenantId: 'globex' })).toBeUndefined();
    expect(await view.get('mail-token')).toBeUndefined();
    // A free reference read first by globex is globex's from then on.
    expect(await view.get('free-token', { tenantId: 'globex' })).toBe('F');
    expect(await view.get('free-token', { tenantId: 'acme' })).toBeUndefined();
    expect(await connectors.bindSecretRefs('acme', ['FREE_TOKEN'])).toEqual(['FREE_TOKEN']);
    // The server's own secrets stay out of reach even for a tenant that bound the name.
    expect(await connectors.bindSecretRefs('acme', ['audit-commitment-key'])).toEqual([]);
    const withKey = tenantSecrets(new InMemorySecretStore({ 'audit-commitment-key': 'MASTER' }), connectors);
    expect(await withKey.get('audit-commitment-key', { tenantId: 'acme' })).toBeUndefined();
  });

  it('a binding seen inside an in-memory transaction stands after its rollback: what a reader kept stays true', async () => {
    const connectors = new InMemoryConnectorStore();
    const view = tenantSecrets(new InMemorySecretStore({ 'mail-token': 'SECRET' }), connectors);
    const journal = new UndoJournal();
    // acme's connector write binds the reference; a read meanwhile sees (and keeps) that acme holds it
    expect(await connectors.journaled(journal).bindSecretRefs('acme', ['mail-token'])).toEqual([]);
    expect(await view.get('mail-token', { tenantId: 'acme' })).toBe('SECRET');
    journal.rollback();
    // globex may not take it now: acme's readers were told acme holds it
    expect(await connectors.bindSecretRefs('globex', ['mail-token'])).toEqual(['mail-token']);
    expect(await view.get('mail-token', { tenantId: 'globex' })).toBeUndefined();
    expect(
      await tenantSecrets(new InMemorySecretStore({ 'mail-token': 'SECRET' }), connectors).get('mail-token', {
        tenantId: 'acme',
      }),
    ).toBe('SECRET');
  });

  it('asks the holders once per tenant and reference (any spelling), not at every read; the answers stand', async () => {
    // EnvSecretStore reads every spelling of a reference as one variable
    const store = new EnvSecretStore({ AGENTGOV_SECRET_MAIL_TOKEN: 'M', AGENTGOV_SECRET_OTHER_TOKEN: 'O' });
    const connectors = new InMemoryConnectorStore();
    const asked: string[] = [];
    const view = tenantSecrets(store, {
      bindSecretRefs: (tenantId, refs) => {
        asked.push(`${tenantId} ${refs.join(',')}`);
        return connectors.bindSecretRefs(tenantId, refs);
      },
    });
    for (let i = 0; i < 3; i++) {
      expect(await view.get('mail-token', { tenantId: 'acme' })).toBe('M');
      expect(await view.get('MAIL_TOKEN', { tenantId: 'globex' })).toBeUndefined();
      expect(await view.get('Mail.Token', { tenantId: 'acme' })).toBe('M');
    }
    expect(asked).toEqual(['acme mail-token', 'globex MAIL_TOKEN']);
    // A reference another tenant bound meanwhile, read first now: asked, and refused.
    await connectors.bindSecretRefs('globex', ['other-token']);
    expect(await view.get('other-token', { tenantId: 'acme' })).toBeUndefined();
    expect(asked).toHaveLength(3);
  });
});
