export * from './engines';
export * from './stores';
