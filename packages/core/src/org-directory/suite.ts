import { expect } from 'vitest';
import { defineConformanceSuite } from '../testing/conformance';
import type { ScopeRef } from '../vocabulary';
import { knowsNode, type OrgDirectory } from './port';

const T = 'acme';
const ent: ScopeRef = { scope: 'enterprise', scopeId: T };
const org = (scopeId: string): ScopeRef => ({ scope: 'org', scopeId });
const team = (scopeId: string): ScopeRef => ({ scope: 'team', scopeId });
const user = (scopeId: string): ScopeRef => ({ scope: 'user', scopeId });

/** The acme example: eng/platform: alice, bob; sales/emea: carol; dana in eng without a team. */
async function seedAcme(dir: OrgDirectory): Promise<void> {
  await dir.place(T, 'alice', { orgUnit: 'eng', team: 'platform' });
  await dir.place(T, 'bob', { orgUnit: 'eng', team: 'platform' });
  await dir.place(T, 'carol', { orgUnit: 'sales', team: 'emea' });
  await dir.place(T, 'dana', { orgUnit: 'eng' });
}

const sortRefs = (refs: ScopeRef[]): ScopeRef[] =>
  [...refs].sort((a, b) => `${a.scope}/${a.scopeId}`.localeCompare(`${b.scope}/${b.scopeId}`));

const cases = {
  'ancestry: a placed user sits under team, org and enterprise': async (dir: OrgDirectory) => {
    await seedAcme(dir);
    expect(await dir.ancestry(T, user('alice'))).toEqual([ent, org('eng'), team('platform'), user('alice')]);
    expect(await dir.ancestry(T, user('carol'))).toEqual([ent, org('sales'), team('emea'), user('carol')]);
  },
  'ancestry: teams, orgs and the enterprise itself': async (dir: OrgDirectory) => {
    await seedAcme(dir);
    expect(await dir.ancestry(T, team('platform'))).toEqual([ent, org('eng'), team('platform')]);
    expect(await dir.ancestry(T, org('sales'))).toEqual([ent, org('sales')]);
    expect(await dir.ancestry(T, ent)).toEqual([ent]);
  },
  'ancestry: a user with an org but no team sits directly under the org': async (dir: OrgDirectory) => {
    await seedAcme(dir);
    expect(await dir.ancestry(T, user('dana'))).toEqual([ent, org('eng'), user('dana')]);
  },
  'ancestry: a user placed in a known team inherits the team’s org': async (dir: OrgDirectory) => {
    await seedAcme(dir);
    await dir.place(T, 'erin', { team: 'platform' });
    expect(await dir.ancestry(T, user('erin'))).toEqual([ent, org('eng'), team('platform'), user('erin')]);
  },
  'ancestry: unknown nodes are placed directly under the enterprise': async (dir: OrgDirectory) => {
    await seedAcme(dir);
    expect(await dir.ancestry(T, user('zed'))).toEqual([ent, user('zed')]);
    expect(await dir.ancestry(T, team('ghost-team'))).toEqual([ent, team('ghost-team')]);
    expect(await dir.ancestry(T, org('ghost-org'))).toEqual([ent, org('ghost-org')]);
    expect(await dir.ancestry('empty-tenant', user('alice'))).toEqual([
      { scope: 'enterprise', scopeId: 'empty-tenant' },
      user('alice'),
    ]);
  },
  'knowsNode: placed users, their teams and orgs are known; anything else is not': async (
    dir: OrgDirectory,
  ) => {
    await seedAcme(dir);
    await dir.place(T, 'loner', {});
    for (const node of [ent, org('eng'), org('sales'), team('platform'), team('emea'), user('alice')]) {
      expect(await knowsNode(dir, T, node)).toBe(true);
    }
    expect(await knowsNode(dir, T, user('dana'))).toBe(true);
    expect(await knowsNode(dir, T, user('loner'))).toBe(true);
    for (const node of [
      user('zed'),
      team('ghost-team'),
      org('ghost-org'),
      { scope: 'enterprise', scopeId: 'globex' } as ScopeRef,
    ]) {
      expect(await knowsNode(dir, T, node)).toBe(false);
    }
    expect(await knowsNode(dir, 'globex', user('alice'))).toBe(false);
    expect(await knowsNode(dir, 'globex', { scope: 'enterprise', scopeId: 'globex' })).toBe(true);
  },
  'children: orgs of the enterprise, teams (and teamless members) of an org, users of a team': async (
    dir: OrgDirectory,
  ) => {
    await seedAcme(dir);
    expect(sortRefs(await dir.children(T, ent))).toEqual([org('eng'), org('sales')]);
    expect(sortRefs(await dir.children(T, org('eng')))).toEqual([team('platform'), user('dana')]);
    expect(sortRefs(await dir.children(T, org('sales')))).toEqual([team('emea')]);
    expect(sortRefs(await dir.children(T, team('platform')))).toEqual([user('alice'), user('bob')]);
    expect(await dir.children(T, user('alice'))).toEqual([]);
    expect(await dir.children(T, team('ghost-team'))).toEqual([]);
  },
  'users: all users of the tenant, or those within an org or a team': async (dir: OrgDirectory) => {
    await seedAcme(dir);
    expect([...(await dir.users(T))].sort()).toEqual(['alice', 'bob', 'carol', 'dana']);
    expect([...(await dir.users(T, ent))].sort()).toEqual(['alice', 'bob', 'carol', 'dana']);
    expect([...(await dir.users(T, org('eng')))].sort()).toEqual(['alice', 'bob', 'dana']);
    expect([...(await dir.users(T, team('emea')))].sort()).toEqual(['carol']);
    expect(await dir.users(T, team('ghost-team'))).toEqual([]);
  },
  'place: placing a user again moves them': async (dir: OrgDirectory) => {
    await seedAcme(dir);
    await dir.place(T, 'alice', { orgUnit: 'sales', team: 'emea' });
    expect(await dir.ancestry(T, user('alice'))).toEqual([ent, org('sales'), team('emea'), user('alice')]);
    expect([...(await dir.users(T, team('platform')))].sort()).toEqual(['bob']);
    expect([...(await dir.users(T, team('emea')))].sort()).toEqual(['alice', 'carol']);
    expect(sortRefs(await dir.children(T, team('emea')))).toEqual([user('alice'), user('carol')]);
  },
  'tenant isolation: another tenant’s tree is invisible': async (dir: OrgDirectory) => {
    await seedAcme(dir);
    await dir.place('globex', 'alice', { orgUnit: 'research', team: 'ml' });
    expect(await dir.users('globex')).toEqual(['alice']);
    expect(await dir.ancestry('globex', user('alice'))).toEqual([
      { scope: 'enterprise', scopeId: 'globex' },
      org('research'),
      team('ml'),
      user('alice'),
    ]);
    expect(await dir.ancestry(T, user('alice'))).toEqual([ent, org('eng'), team('platform'), user('alice')]);
    expect(await dir.children('globex', { scope: 'enterprise', scopeId: 'globex' })).toEqual([
      org('research'),
    ]);
    expect(await dir.users('globex', org('eng'))).toEqual([]);
    expect(await dir.users('nobody')).toEqual([]);
  },
} satisfies Record<string, (dir: OrgDirectory) => Promise<void>>;

export type OrgDirectoryCaseName = keyof typeof cases;
export const describeOrgDirectoryConformance = defineConformanceSuite<OrgDirectory, OrgDirectoryCaseName>(
  'OrgDirectory',
  cases,
);
