/**
 * `inMemoryPolicyStack`: the placements are in the directory, the enterprise policies are created
 * through the audited service and resolved for each placed user, the engine decides on them, and
 * a later write through the service is seen at once (the resolver is invalidated, not stale).
 */
import { describe, expect, it } from 'vitest';
import { inMemoryPolicyStack } from '../src/index';

const ACTIONS = 'blocked: [wire_money]\n';

describe('inMemoryPolicyStack', () => {
  it('places users, creates enterprise policies, resolves and decides on them', async () => {
    const stack = await inMemoryPolicyStack({
      placements: [
        { tenantId: 'acme', userId: 'alice', orgUnit: 'eng' },
        { tenantId: 'globex', userId: 'dave', orgUnit: 'ops' },
      ],
      enterprise: ['acme', 'globex'].map((tenantId) => ({
        tenantId,
        domain: 'actions' as const,
        name: 'Actions',
        content: ACTIONS,
        changeReason: 'test',
      })),
    });
    expect(await stack.directory.users('acme', { scope: 'org', scopeId: 'eng' })).toEqual(['alice']);
    expect(await stack.store.count('acme')).toBe(1);
    expect(await stack.store.count('globex')).toBe(1);
    expect(await stack.effectiveContent('globex', 'actions', 'dave')).toMatchObject({
      blocked: ['wire_money'],
    });
    const wire = {
      domain: 'actions' as const,
      tenantId: 'acme',
      userId: 'alice',
      input: { tool: 'wire_money' },
    };
    expect((await stack.engine.decide(wire))._unsafeUnwrap().allow).toBe(false);

    // A user-level policy written through the service is effective at once.
    const added = await stack.service.create(
      { userId: 'admin', tenantId: 'acme', roles: ['enterprise_admin'] },
      {
        scope: 'user',
        scopeId: 'alice',
        domain: 'actions',
        name: 'Alice',
        version: '1.0.0',
        content: 'blocked: [send_mail]\n',
        changeReason: 'test',
      },
    );
    expect(added.isOk()).toBe(true);
    const mail = { ...wire, input: { tool: 'send_mail' } };
    expect((await stack.engine.decide(mail))._unsafeUnwrap().allow).toBe(false);
  });

  it('throws the service error when an enterprise policy is refused', async () => {
    await expect(
      inMemoryPolicyStack({
        placements: [],
        enterprise: [
          {
            tenantId: 'acme',
            domain: 'actions',
            name: 'Bad',
            content: 'blocked: 42\n',
            changeReason: 'test',
          },
        ],
      }),
    ).rejects.toMatchObject({ code: expect.any(String) });
  });
});
