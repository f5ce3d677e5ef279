/**
 * Public types: camelCase, lists always arrays, missing values `null`, tags as arrays.
 *
 * Every mapped record carries `extra`: the wire fields this client does not know, under their
 * wire (snake_case) names, untouched. A newer server adding fields never breaks parsing, and the
 * data is still reachable. (Config is the exception: it is a free-form tree, see {@link AnalyticsConfig}.)
 */

export type Extra = Record<string, unknown>;
