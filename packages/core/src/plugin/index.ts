export * from './context';
export * from './http';
export * from './observe';
export * from './plugin';
export * from './route';
