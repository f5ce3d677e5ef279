export * from './audit-sink';
export * from './audit-store';
export * from './org-directory';
export * from './stores';
