export { ACCOUNTS, type Harness, type Who } from './harness';
export { createTestService, type TestServiceOverrides } from './service';
export { describeHttpSuite } from './suite';
