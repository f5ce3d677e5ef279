/** Public types, one module per API area (see the README's Layout section). */

export type * from './budgets';
export type * from './common';
export type * from './config';
export type * from './export';
export type * from './prompts';
export type * from './records';
export type * from './sessions';
export type * from './stats';
export type * from './timeline';
