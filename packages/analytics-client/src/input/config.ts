// Input schema of `POST /api/config` (spec: Config, fields not documented): a plain object, which
// the server overlays onto its configuration; numbers must be finite (JSON has no NaN).
import { z } from 'zod';

const finiteJson: z.ZodType<unknown> = z.lazy(() =>
  z.union([
    z.string(),
    z.number({ error: 'must be a finite number' }),
    z.boolean(),
    z.null(),
    z.array(finiteJson),
    z.record(z.string(), finiteJson),
  ]),
);

export const configInput = z.record(z.string(), finiteJson, { error: 'must be an object' });
