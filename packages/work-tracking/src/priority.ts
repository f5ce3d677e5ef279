/**
 * Task priority, 0–100, from the deadline and the urgency signals. Points, then clamped:
 * - deadline: overdue 40, within 24 h 32, within 3 days 24, within 7 days 14, later 6, none 0;
 * - senderSeniority (0–1; values above 1 are read as a 0–10 scale): up to 20;
 * - followUpCount: 5 each, up to 15;
 * - slaTimer (ISO 8601 timestamp, or a duration counted from discoveredAt): breached 15,
 *   due within 24 h 10, later 3;
 * - blockingRelationships: 5 per blocked item, up to 10.
 */
import type { Task } from '@agentgov/core';

const HOUR = 3_600_000;

/** An ISO 8601 duration (`P1DT4H`, `PT30M`, `P2W`) in ms; undefined when it is not one. */
export function durationMs(value: string): number | undefined {
  const m =
    /^P(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(
      value,
    );
  if (!m || value === 'P' || value.endsWith('T')) return undefined;
  const [w, d, h, min, s] = m.slice(1).map((x) => (x ? Number(x) : 0)) as [
    number,
    number,
    number,
    number,
    number,
  ];
  return (((w * 7 + d) * 24 + h) * 60 + min) * 60_000 + s * 1000;
}

export interface PriorityFactor {
  signal: string;
  points: number;
}

export function priorityOf(
  task: Pick<Task, 'deadline' | 'urgencySignals' | 'discoveredAt'>,
  now: Date,
): { score: number; factors: PriorityFactor[] } {
  const factors: PriorityFactor[] = [];
  const t = now.getTime();
  if (task.deadline) {
    const left = Date.parse(task.deadline) - t;
    const points =
      left < 0 ? 40 : left <= 24 * HOUR ? 32 : left <= 72 * HOUR ? 24 : left <= 168 * HOUR ? 14 : 6;
    factors.push({ signal: left < 0 ? 'deadline passed' : 'deadline', points });
  }
  const u = task.urgencySignals;
  if (u.senderSeniority !== null && u.senderSeniority > 0) {
    const s = u.senderSeniority > 1 ? Math.min(u.senderSeniority, 10) / 10 : u.senderSeniority;
    factors.push({ signal: 'sender seniority', points: Math.round(20 * s) });
  }
  if (u.followUpCount > 0) factors.push({ signal: 'follow-ups', points: Math.min(15, 5 * u.followUpCount) });
  if (u.slaTimer) {
    const d = durationMs(u.slaTimer);
    const due = d !== undefined ? Date.parse(task.discoveredAt) + d : Date.parse(u.slaTimer);
    if (!Number.isNaN(due)) {
      const left = due - t;
      factors.push({
        signal: left < 0 ? 'SLA breached' : 'SLA timer',
        points: left < 0 ? 15 : left <= 24 * HOUR ? 10 : 3,
      });
    }
  }
  if (u.blockingRelationships.length > 0)
    factors.push({ signal: 'blocks other items', points: Math.min(10, 5 * u.blockingRelationships.length) });
  const score = Math.max(
    0,
    Math.min(
      100,
      factors.reduce((n, f) => n + f.points, 0),
    ),
  );
  return { score, factors };
}
