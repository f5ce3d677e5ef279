export * from './audit-sink';
export * from './audit-store';
export * from './instance-registry';
export * from './org-directory';
export * from './stores';
