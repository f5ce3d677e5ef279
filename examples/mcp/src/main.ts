import { runScenario } from './scenario';

await runScenario();
