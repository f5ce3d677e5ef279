/** The work-tracking ports' conformance suites against the in-memory and HTTP implementations. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EnvSecretStore, FileSecretStore, InMemoryTracker, InMemoryWorkTrackingStore } from '@agentgov/core';
import {
  describeSecretStoreConformance,
  describeTrackerClientConformance,
  describeWorkTrackingStoreConformance,
} from '@agentgov/core/testing';
import { describe, expect, it } from 'vitest';
import { HttpTrackerClient } from '../src/http-tracker';
import { startLoopbackTracker } from '../src/testing/index';

describeWorkTrackingStoreConformance('memory', async () => ({ store: new InMemoryWorkTrackingStore() }));

describeTrackerClientConformance('in-memory tracker', async () => {
  const t = new InMemoryTracker();
  return {
    store: {
      client: t,
      tracker: {
        addTicket: async (key, status) => void t.addTicket(key, status ? { status } : {}),
        comments: async (key) => t.tickets.get(key)?.comments.map((c) => c.body) ?? [],
        status: async (key) => t.tickets.get(key)?.status,
      },
    },
  };
});

describeTrackerClientConformance('HTTP client ↔ loopback Jira-compatible server', async () => {
  const server = await startLoopbackTracker({ token: 'tok' });
  const t = server.tracker;
  return {
    store: {
      client: new HttpTrackerClient({
        baseUrl: server.url,
        auth: { type: 'bearer', token: 'tok' },
        retries: 0,
      }),
      tracker: {
        addTicket: async (key, status) => void t.addTicket(key, status ? { status } : {}),
        comments: async (key) => t.tickets.get(key)?.comments.map((c) => c.body) ?? [],
        status: async (key) => t.tickets.get(key)?.status,
      },
    },
    cleanup: () => server.close(),
  };
});

describeSecretStoreConformance('env', async () => ({ store: new EnvSecretStore({}) }));

describe('FileSecretStore', () => {
  it('reads one file per reference, trims one trailing newline, refuses path tricks, sees rotation', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'agentgov-secrets-'));
    try {
      await writeFile(path.join(dir, 'codehost-webhook'), 'first\n');
      await writeFile(path.join(dir, 'multi'), 'line1\nline2\n\n');
      await writeFile(path.join(dir, 'empty'), '');
      const s = new FileSecretStore(dir);
      expect(await s.get('codehost-webhook')).toBe('first');
      expect(await s.get('multi')).toBe('line1\nline2\n');
      expect(await s.get('empty')).toBeUndefined();
      expect(await s.get('missing')).toBeUndefined();
      for (const bad of ['../etc/passwd', '/etc/passwd', '.hidden', 'a/b', 'a\\b', '..', '', 'x\u0000y'])
        expect(await s.get(bad)).toBeUndefined();
      await writeFile(path.join(dir, 'codehost-webhook'), 'second');
      expect(await s.get('codehost-webhook')).toBe('second');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
