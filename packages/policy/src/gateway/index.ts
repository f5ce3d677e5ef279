/** `@agentgov/policy/gateway`: the policy domain's routes as a plugin of the gateway kernel. */
export { type PolicyPlugin, type PolicyRoutesOptions, policyRoutes } from './routes';
export { DecisionBodySchema, ExplainBodySchema, PolicyListQuery } from './schemas';
