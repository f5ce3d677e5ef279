// Input schema of `POST /api/config` (spec: Config, fields not documented): a plain object, which
// the server overlays onto its configuration. JSON has no NaN or Infinity (`JSON.stringify` would
// send `null`), so such numbers are refused wherever they are, with their path.
import { z } from 'zod';

function checkFinite(value: unknown, path: (string | number)[], ctx: z.RefinementCtx): void {
  if (typeof value === 'number' && !Number.isFinite(value)) {
    ctx.addIssue({ code: 'custom', path, message: 'must be a finite number' });
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => {
      checkFinite(v, [...path, i], ctx);
    });
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) checkFinite(v, [...path, k], ctx);
  }
}

export const configInput = z
  .record(z.string(), z.unknown(), { error: 'must be an object' })
  .superRefine((value, ctx) => checkFinite(value, [], ctx));
