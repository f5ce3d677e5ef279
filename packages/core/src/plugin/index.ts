export * from './context';
export * from './http';
export * from './plugin';
export * from './route';
