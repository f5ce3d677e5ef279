import type { Connector, ConnectorStatus } from './schema';

export interface ConnectorStore {
  insert(connector: Connector): Promise<void>;
  update(connector: Connector): Promise<boolean>;
  get(tenantId: string, id: string): Promise<Connector | undefined>;
  /** Connectors of the tenant ordered by createdAt then id. */
  list(
    tenantId: string,
    filter?: { status?: ConnectorStatus; type?: Connector['type'] },
  ): Promise<Connector[]>;
}
