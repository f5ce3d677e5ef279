/** `@agentgov/interchange/gateway`: the routes plugin for humans (list, read, approve, reject). */
export {
  DecisionBody,
  ExchangeListQuery,
  type InterchangePlugin,
  type InterchangeRoutesOptions,
  interchangeRoutes,
} from './routes';
