// Wire shapes shared by several areas: the `{"status": ...}` acknowledgement and the error body.
import { z } from 'zod';
import type * as T from '../types';
import { decoder } from './primitives';

/** `{"status": "..."}`: `POST /api/git-sync` (`syncing`) and `DELETE /api/budgets/{id}`. */
export const statusReply = decoder(
  z.object({ status: z.string() }).loose(),
  (w): T.GitSyncResult => ({ status: w.status }),
);

/** An error body: `{"error": "..."}`. */
export const wireError = z.object({ error: z.string() }).loose();
