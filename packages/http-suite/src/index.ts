export { ACCOUNTS, type Harness, type Who } from './harness';
export { describeAccessMatrix, UNLIMITED_RATE_LIMITS } from './matrix';
export { createTestService, type TestServiceOverrides } from './service';
export { describeHttpSuite } from './suite';
