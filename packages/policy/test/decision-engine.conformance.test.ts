/**
 * The DecisionEngine conformance suite (`@agentgov/core/testing`) against both engines: the
 * built-in engine over a PolicyStore + org directory, and the OPA client talking to a real
 * loopback HTTP server that speaks the OPA REST Data API (./opa-loopback.ts).
 */
import { InMemoryOrgDirectory, InMemoryPolicyStore, type Policy } from '@agentgov/core';
import { describeDecisionEngineConformance } from '@agentgov/core/testing';
import { BuiltinDecisionEngine, EffectivePolicyResolver, OpaDecisionEngine } from '../src/index';
import { startOpaLoopback } from './opa-loopback';

/** A built-in engine with an empty store; `seed` inserts policies and drops the resolver's cache. */
function builtin() {
  const store = new InMemoryPolicyStore();
  const directory = InMemoryOrgDirectory.fromDefinitions(
    { tenant: 'acme', orgs: { eng: { teams: { platform: ['alice', 'bob'] } } } },
    { tenant: 'globex', orgs: { research: { users: ['alice'] } } },
  );
  const resolver = new EffectivePolicyResolver({ store, directory });
  return {
    engine: new BuiltinDecisionEngine(resolver),
    seed: async (policies: readonly Policy[]) => {
      for (const p of policies) await store.insert(p);
      resolver.invalidate();
    },
  };
}

describeDecisionEngineConformance('builtin', async () => ({ store: builtin() }));

describeDecisionEngineConformance('opa (loopback OPA REST server)', async () => {
  const behind = builtin();
  const opa = await startOpaLoopback(behind.engine);
  return {
    store: { engine: new OpaDecisionEngine({ url: opa.url, timeoutMs: 5_000 }), seed: behind.seed },
    cleanup: () => opa.close(),
  };
});
