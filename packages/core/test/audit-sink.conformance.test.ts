/** The AuditSink conformance suite against the in-memory sink (no hash chain: entries in an array). */
import { InMemoryAuditSink } from '@agentgov/core';
import { describeAuditSinkConformance } from '@agentgov/core/testing';

describeAuditSinkConformance('memory', async () => {
  const sink = new InMemoryAuditSink();
  return {
    store: {
      sink,
      entries: async (tenantId: string) => sink.entries.filter((e) => e.tenantId === tenantId),
    },
  };
});
