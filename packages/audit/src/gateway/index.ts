/** `@agentgov/audit/gateway`: the audit domain's routes as a plugin of the gateway kernel. */
export { type AuditPlugin, type AuditRoutesOptions, auditRoutes, auditVisibility } from './routes';
