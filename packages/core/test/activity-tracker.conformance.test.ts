/** The ActivityTracker conformance suite against the in-memory tracker. */
import { InMemoryActivityTracker } from '@agentgov/core';
import { describeActivityTrackerConformance } from '@agentgov/core/testing';

describeActivityTrackerConformance('memory', async () => ({ store: new InMemoryActivityTracker() }));
