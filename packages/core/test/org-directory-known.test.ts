/**
 * `knowsNode` without a directory's own `knows`: the OrgDirectory conformance suite (which has a
 * `knowsNode` case) over an in-memory directory whose `knows` is hidden, so the fallback through
 * `users`, `children` and `ancestry` is what is checked (the SQL directory takes this path).
 */
import { InMemoryOrgDirectory, type OrgDirectory } from '@agentgov/core';
import { describeOrgDirectoryConformance } from '@agentgov/core/testing';

function withoutKnows(inner: OrgDirectory): OrgDirectory {
  return {
    ancestry: (t, n) => inner.ancestry(t, n),
    children: (t, n) => inner.children(t, n),
    place: (t, u, p) => inner.place(t, u, p),
    users: (t, w) => inner.users(t, w),
  };
}

describeOrgDirectoryConformance('in-memory, knowsNode fallback (no knows method)', async () => ({
  store: withoutKnows(new InMemoryOrgDirectory()),
}));
