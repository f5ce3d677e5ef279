/**
 * Every variable of the reference server's configuration contract, each set to a non-default
 * value: what `config.test.ts` reads and what `config-file.test.ts` must give the same result as.
 */
export const EVERY_VARIABLE: Record<string, string> = {
  PORT: '9000',
  HOST: '0.0.0.0',
  AGENTGOV_FRAMEWORK: 'koa',
  DATABASE_URL: 'postgres://u@db:5432/gov',
  REDIS_URL: 'redis://cache:6379',
  OPA_URL: 'http://opa:8181',
  OIDC_ISSUER: 'https://idp.example',
  OIDC_CLIENT_ID: 'gov',
  OIDC_CLIENT_SECRET: 's3cret',
  OIDC_REDIRECT_URI: 'https://gov.example/callback',
  AGENTGOV_SECRETS: 'env',
  OIDC_SCOPES: 'openid email groups',
  AGENTGOV_CHECKPOINT_INTERVAL: '300',
  AGENTGOV_LOG_LEVEL: 'warn',
  AGENTGOV_METRICS_TOKEN: 'scraper-token-0123456789',
  AGENTGOV_TRUST_PROXY: '1',
  AGENTGOV_FORWARDED_HEADER: 'forwarded',
  AGENTGOV_SECURE_COOKIES: '1',
  AGENTGOV_CONNECTOR_EGRESS: 'public',
  AGENTGOV_SECRET_OWNERS: 'acme=acme-jira,acme-hook;globex=globex-token',
  AGENTGOV_CONNECTOR_NETWORKS: '10.20.0.0/16,fd00:1::/64',
};
