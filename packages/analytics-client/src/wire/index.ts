// Transitional barrel while the client is split into area modules.
export * from './budgets';
export * from './common';
export * from './config';
export * from './export';
export * from './primitives';
export * from './prompts';
export * from './records';
export * from './sessions';
export * from './stats-tools';
export * from './stats-usage';
export * from './timeline';
