/** `@agentgov/policy/gateway`: the policy domain's routes as a plugin of the gateway kernel. */
export {
  DecisionBodySchema,
  ExplainBodySchema,
  PolicyListQuery,
  type PolicyPlugin,
  type PolicyRoutesOptions,
  policyRoutes,
} from './routes';
