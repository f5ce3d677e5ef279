/** `@agentgov/work-tracking/testing`: loopback Jira-compatible tracker and GitHub-compatible code host for tests and demos. */
export * from './loopback-codehost';
export * from './loopback-tracker';
