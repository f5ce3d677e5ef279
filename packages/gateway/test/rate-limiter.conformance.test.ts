/** The RateLimiter conformance suite (`@agentgov/core/testing`) against the in-process limiter. */
import { describeRateLimiterConformance } from '@agentgov/core/testing';
import { MemoryRateLimiter } from '../src/index';

describeRateLimiterConformance('memory (rate-limiter-flexible)', async () => ({
  store: new MemoryRateLimiter(),
}));
