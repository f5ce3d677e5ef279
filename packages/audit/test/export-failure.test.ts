/**
 * Issue 12 item 3: a failure during a streamed export ends the body with a clear error marker —
 * never a reset stream, never a short body that looks complete.
 */
import type { AuditRecord } from '@agentgov/core';
import { linkRecords, makeAuditEntry } from '@agentgov/core/testing';
import { describe, expect, it } from 'vitest';
import { exportStream } from '../src/index';

async function* failingAfter(n: number): AsyncIterable<AuditRecord> {
  const records = linkRecords(
    undefined,
    Array.from({ length: n }, () => makeAuditEntry({ tenantId: 't1' })),
  );
  for (const r of records) yield r;
  throw new Error('Connection terminated unexpectedly');
}

describe('export stream failing mid-way (issue 12 item 3)', () => {
  it('JSON: valid JSON whose total counts what was written and that carries the error', async () => {
    const text = await new Response(exportStream(failingAfter(3), 'json')).text();
    const body = JSON.parse(text);
    expect(body.entries).toHaveLength(3);
    expect(body.total).toBe(3);
    expect(body.error).toMatchObject({
      error: 'service_unavailable',
      message: expect.stringContaining('incomplete'),
    });
  });

  it('CSV: the rows written, then a last #ERROR line', async () => {
    const text = await new Response(exportStream(failingAfter(2), 'csv')).text();
    const lines = text.trimEnd().split('\r\n');
    expect(lines).toHaveLength(4);
    expect(lines.at(-1)).toMatch(/^#ERROR,.*incomplete/);
  });

  it('a complete export has no marker', async () => {
    async function* ok(): AsyncIterable<AuditRecord> {
      yield* linkRecords(undefined, [makeAuditEntry({ tenantId: 't1' })]);
    }
    expect(JSON.parse(await new Response(exportStream(ok(), 'json')).text())).not.toHaveProperty('error');
    expect(await new Response(exportStream(ok(), 'csv')).text()).not.toContain('#ERROR');
  });
});
