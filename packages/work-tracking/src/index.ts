/**
 * `@agentgov/work-tracking`: verified code-host and tracker webhooks, ticket references,
 * policy-gated tracker writes through a durable outbox, standups, tasks (discovery, correlation,
 * priority, retention), briefings and classification, scheduled connector pulls and daily briefings. The HTTP routes are in `./gateway`.
 */
export * from './briefings';
export * from './classification';
export * from './connector-config';
export * from './correlation';
export * from './egress';
export * from './events';
export * from './http-tracker';
export * from './integrations';
export * from './outbox';
export * from './priority';
export * from './signature';
export * from './standup';
export * from './sync/briefing-schedule';
export * from './sync/codehost-source';
export * from './sync/connector-sync';
export * from './sync/pull-http';
export * from './sync/scheduler';
export * from './sync/tracker-source';
export * from './tasks';
export * from './tickets';
export * from './time-zone';
export * from './webhooks';
export * from './work-tracking';
