/** Moved to @agentgov/core (the configuration files use it too); kept here for compatibility. */
export { nearestName } from '@agentgov/core';
export {
  type BundleFileError,
  type BundleReport,
  type BundleViolation,
  type BundleWarning,
  bundleEngine,
  bundlePolicies,
  loadOrgDirectoryYaml,
  loadPolicyBundle,
  MAX_POLICY_FILE_BYTES,
  type OrgDirectoryDefinitionParsed,
  type PolicyBundle,
  type PolicyDocument,
  PolicyFileSchema,
  parsePolicyFile,
  validateBundle,
} from './bundle';
export {
  DOMAIN_SCHEMAS,
  MAX_CONTENT_ITEMS,
  MAX_CONTENT_STRING,
  parsePolicyContent,
  parseYaml,
  schemaOf,
  toYaml,
} from './content';
export * from './domains';
export {
  BuiltinDecisionEngine,
  DEFAULT_OPA_PATHS,
  decideOnEffective,
  decisionNode,
  OpaDecisionEngine,
  type OpaDecisionEngineOptions,
  OpaDecisionSchema,
} from './engines';
export {
  DEFAULT_MAX_CLASSIFICATION_SHARED,
  evaluate,
  evaluateAgentToAgent,
  evaluateIntegrations,
  REASONS,
} from './evaluate';
export {
  evaluateActions,
  evaluateData,
  evaluateFeatures,
  evaluateModels,
  SENSITIVE_FROM,
} from './evaluate-domains';
export {
  type Contribution,
  type DecisionExplanation,
  explainDecision,
  type PolicyRef,
  type TraceLevel,
} from './explain';
export {
  type ChainLevel,
  type ChainPolicy,
  effectiveAlong,
  meetContents,
  validateChain,
  violationsAgainst,
} from './hierarchy';
export { type InMemoryPolicyStack, type InMemoryPolicyStackOptions, inMemoryPolicyStack } from './in-memory';
export {
  POLICY_FILE_SCHEMA_FILE,
  policyFileJsonSchema,
  policyFileJsonSchemaText,
} from './json-schema';
export * from './lattice';
export {
  type DecisionAuditFields,
  decisionAuditEntry,
  decisionAuditFields,
  type LoadedPolicyEngine,
  loadPolicyEngine,
} from './policy-engine';
export { canManage, canSee, checkTarget, type Principal, principalChain } from './rbac';
export {
  type CachedEffectivePolicy,
  type EffectivePolicy,
  EffectivePolicyResolver,
  type EffectivePolicyResolverOptions,
  loadChain,
  parseStored,
  type ResolveQuery,
  unknownNodeError,
} from './resolver';
export {
  PolicyListQuerySchema,
  PolicyService,
  type PolicyServiceError,
  type PolicyServiceOptions,
  type WriteContext,
} from './service';
export { type TlsFetchOptions, tlsFetch } from './tls-fetch';
export { type PolicyWarning, policyContentWarnings } from './warnings';
