// Server configuration (spec: Config): read it, save a partial overlay.
import { configInput } from '../input/config';
import type * as T from '../types';
import { analyticsConfig, configToWire } from '../wire/config';
import { ClientCore } from './core';
import type { CallOptions } from './options';

export abstract class ConfigApi extends ClientCore {
  async getConfig(options?: CallOptions): Promise<T.AnalyticsConfig> {
    return this.call({ method: 'GET', path: '/api/config' }, analyticsConfig, options);
  }

  /**
   * POST /api/config: the server overlays the body onto its configuration, so a partial object
   * changes only the given fields. Returns the saved configuration. Not retried unless
   * `retry.nonIdempotent`.
   */
  async saveConfig(config: T.AnalyticsConfig, options?: CallOptions): Promise<T.AnalyticsConfig> {
    this.input(configInput, config, 'POST /api/config');
    return this.call(
      { method: 'POST', path: '/api/config', body: configToWire(config) },
      analyticsConfig,
      options,
    );
  }
}
