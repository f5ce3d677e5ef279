import type { Briefing } from './schema';

export interface BriefingStore {
  insert(briefing: Briefing): Promise<void>;
  get(tenantId: string, id: string): Promise<Briefing | undefined>;
  /** The most recently generated briefing of a user. */
  latest(tenantId: string, userId: string): Promise<Briefing | undefined>;
  markDelivered(tenantId: string, id: string, deliveredAt: string): Promise<boolean>;
}
