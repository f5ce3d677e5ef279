/** `@agentgov/work-tracking/testing`: a loopback Jira-compatible tracker for tests and demos. */
export * from './loopback-tracker';
