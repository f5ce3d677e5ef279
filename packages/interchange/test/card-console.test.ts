/**
 * A card that does not verify on the client side (no governed server running in the process):
 * the A2A SDK's console output (a failed signature's message and stack) goes to the transport's
 * logger at debug level, or nowhere, never to the process's stdout/stderr, where a hostile peer
 * could otherwise fill the client's logs one request at a time.
 */
import { AgentCard } from '@a2a-js/sdk';
import type { Logger } from '@agentgov/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildGovernedCard, verifyGovernedCard } from '../src/a2a';
import { generateAgentKeys, KeyRing } from '../src/index';
import { BOB_PEER } from './harness';

const METHODS = ['log', 'info', 'warn', 'error', 'debug'] as const;

async function tamperedCard() {
  const pair = await generateAgentKeys('acme', 'agent-bob', { userId: 'bob' });
  const keys = new KeyRing();
  keys.add(pair.publicJwk);
  const card = await buildGovernedCard({
    peer: BOB_PEER,
    url: 'http://127.0.0.1:1/',
    signingKey: pair.signingKey,
  });
  const json = AgentCard.toJSON(card) as Record<string, unknown>;
  return { json: { ...json, name: 'not what was signed' }, keys };
}

describe('verifyGovernedCard: the SDK never writes to the console', () => {
  afterEach(() => vi.restoreAllMocks());

  it('a tampered card is refused; the SDK’s lines go to the logger, none to the console', async () => {
    const { json, keys } = await tamperedCard();
    const spies = METHODS.map((m) => vi.spyOn(console, m).mockImplementation(() => {}));
    const lines: unknown[] = [];
    const logger: Logger = { debug: (_m, f) => lines.push(f), info() {}, warn() {}, error() {} };
    const r = await verifyGovernedCard(json, 'agent-bob', keys, { logger });
    expect(r._unsafeUnwrapErr().reason).toBe('card_signature_invalid');
    const silent = await verifyGovernedCard(json, 'agent-bob', keys);
    expect(silent._unsafeUnwrapErr().reason).toBe('card_signature_invalid');
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
    expect(lines.length).toBeGreaterThan(0);
    // Outside a verification the console is the process's own again.
    console.warn('after');
    expect(spies[2]).toHaveBeenCalledWith('after');
  });
});
