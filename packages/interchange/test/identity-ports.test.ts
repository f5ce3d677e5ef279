/**
 * fast-check: a node without a policy or availability port derives its identity without waiting
 * on them — exactly the identity the general path (Promise.all over the ports) gives when the
 * ports answer nothing.
 */
import { EXCHANGE_TYPES, systemClock } from '@agentgov/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createNodeContext, type NodeOptions } from '../src/context';
import { InMemoryReplayGuard } from '../src/keys';

const level = fc.constantFrom('public', 'internal', 'confidential', 'restricted');
const config = fc.record({
  canReceiveQueries: fc.boolean(),
  canAutoRespond: fc.boolean(),
  canMakeCommitments: fc.boolean(),
  maxClassificationShared: level,
  supportedExchangeTypes: fc.subarray([...EXCHANGE_TYPES]),
  maxRoundsAccepted: fc.integer({ min: 1, max: 10 }),
});

const node = (identityConfig: NodeOptions['identityConfig'], ports: Partial<NodeOptions>) =>
  createNodeContext(
    {
      agentId: 'agent-bob',
      userId: 'bob',
      tenantId: 'acme',
      orgUnit: 'eng',
      identityConfig,
      signingKey: { tenantId: 'acme', agentId: 'agent-bob', userId: 'bob' },
      engine: { name: 'builtin' },
      ...ports,
    } as NodeOptions,
    systemClock,
    new InMemoryReplayGuard(),
  );

describe('identity without ports', () => {
  it('is the identity of the general path whose ports answer nothing', async () => {
    await fc.assert(
      fc.asyncProperty(config, fc.boolean(), async (identityConfig, withSignal) => {
        const signal = withSignal ? new AbortController().signal : undefined;
        const fast = await node(identityConfig, {}).identity(signal);
        const general = await node(identityConfig, {
          policy: async () => undefined as never,
          availability: { availability: async () => undefined as never },
        }).identity(signal);
        expect(fast).toStrictEqual(general);
      }),
    );
  });

  it('still waits for a port that is configured', async () => {
    const identityConfig = {
      canReceiveQueries: true,
      canAutoRespond: true,
      canMakeCommitments: false,
      maxClassificationShared: 'confidential' as const,
      supportedExchangeTypes: [...EXCHANGE_TYPES],
      maxRoundsAccepted: 3,
    };
    const away = await node(identityConfig, {
      availability: { availability: async () => 'away' },
    }).identity();
    expect(away.humanAvailability).toBe('away');
    const narrowed = await node(identityConfig, {
      policy: async () => ({ max_classification_shared: 'internal' }),
    }).identity();
    expect(narrowed.maxClassificationShared).toBe('internal');
  });
});
