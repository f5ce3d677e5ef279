/** Reading an exchange's transcript (the API types it as a list of objects; these are its kinds). */
import type { Schemas } from './api/client';

export type Exchange = Schemas['Exchange'];

interface Item {
  source: string;
  field: string;
  classification: string;
  value?: unknown;
}

export interface Entry {
  kind: string;
  round?: number;
  from?: string;
  text?: string;
  items?: Item[];
  approvalId?: string;
  action?: string;
  reason?: string;
  ceiling?: string;
  initiatorOrgUnit?: string;
  decision?: string;
  by?: string;
  note?: string;
  outcome?: string;
  code?: string;
  at?: string;
  expiresAt?: string;
  automatic?: boolean;
  commitment?: unknown;
}

export const entriesOf = (x: Exchange): Entry[] => x.transcript as unknown as Entry[];

/** The request an exchange waits on for a human, when undecided (as the interchange computes it). */
export function pendingRequest(x: Exchange): { request: Entry; message: Entry | undefined } | undefined {
  if (x.outcome !== 'in_progress') return undefined;
  const list = entriesOf(x);
  for (let i = list.length - 1; i >= 0; i--) {
    const e = list[i] as Entry;
    if (e.kind === 'awaiting_human') {
      const decided = list.some((d) => d.kind === 'human_decision' && d.approvalId === e.approvalId);
      const replied = list.some((r) => r.kind === 'reply' && r.round === e.round);
      if (decided || replied) return undefined;
      const message = list.find((m) => m.kind === 'message' && m.round === e.round);
      return { request: e, message };
    }
    if (e.kind === 'reply') return undefined;
  }
  return undefined;
}
