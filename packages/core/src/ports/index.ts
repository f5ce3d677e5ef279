export * from './audit-sink';
export * from './engines';
export * from './stores';
