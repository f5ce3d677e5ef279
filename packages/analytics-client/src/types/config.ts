// Server configuration (spec: Config).

export interface ModelPricing {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  [key: string]: unknown;
}

/**
 * Server configuration. The field list is not part of the spec; the known parts are typed, and the
 * whole tree is converted key-by-key between snake_case and camelCase (except the model names under
 * `cost.models`, which are map keys). Unknown fields appear camelCased in place and are sent back
 * snake_cased by {@link AnalyticsClient.saveConfig}.
 */
export interface AnalyticsConfig {
  server?: { port?: number; host?: string; [key: string]: unknown };
  capture?: {
    metadata?: Record<string, boolean>;
    events?: Record<string, boolean>;
    [key: string]: unknown;
  };
  storage?: {
    databasePath?: string;
    archivePath?: string;
    archiveEnabled?: boolean;
    retentionDays?: number;
    maxDbSizeMb?: number;
    [key: string]: unknown;
  };
  cost?: { models?: Record<string, ModelPricing>; [key: string]: unknown };
  ui?: { theme?: string; defaultPage?: string; sessionsPerPage?: number; [key: string]: unknown };
  [key: string]: unknown;
}
