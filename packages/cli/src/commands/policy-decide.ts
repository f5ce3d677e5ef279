/**
 * `agentgov policy decide DIR --domain agent-to-agent|integrations|models|actions|data|features --input FILE [--user ID]
 * [--fail-on-deny]`: prints the built-in engine's decision `{allow, deny, reason, constraints}`
 * for the effective policy of the user (or of the enterprise). Exit 0 with a decision (1 on a
 * deny with --fail-on-deny), 2 on unusable input.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import {
  DECISION_DOMAINS,
  DECISION_INPUT_SCHEMAS,
  type DecisionDomain,
  type DecisionRequest,
  validationErrorFromZod,
} from '@agentgov/core';
import { bundleEngine, loadPolicyBundle, MAX_POLICY_FILE_BYTES, parseYaml } from '@agentgov/policy';
import { type CliIo, EXIT, parseUsage, UsageError } from '../io';
import { describe } from './policy-common';

const USAGE = `usage: agentgov policy decide DIR --domain ${DECISION_DOMAINS.join('|')} --input FILE [--user ID] [--fail-on-deny]`;

export default async function policyDecide(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseUsage(parse, args, USAGE);
  const dir = positionals[0];
  if (!dir || positionals.length > 1) throw new UsageError(USAGE);
  const domain = values.domain;
  if (!domain || !(DECISION_DOMAINS as readonly string[]).includes(domain)) {
    throw new UsageError(`--domain must be one of ${DECISION_DOMAINS.join(', ')}\n${USAGE}`);
  }
  if (!values.input) throw new UsageError(`--input FILE is required\n${USAGE}`);

  let text: string;
  try {
    text = await readFile(values.input, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read input ${values.input}: ${(error as Error).message}`);
  }
  if (Buffer.byteLength(text) > MAX_POLICY_FILE_BYTES)
    throw new UsageError(`input ${values.input} is too large`);
  const raw = parseYaml(text, 'input');
  if (raw.isErr()) throw new UsageError(`input ${values.input}: ${raw.error.message}`);
  const schema = DECISION_INPUT_SCHEMAS[domain as DecisionDomain];
  const input = schema.safeParse(raw.value);
  if (!input.success) {
    const e = validationErrorFromZod(input.error, raw.value, 'input');
    throw new UsageError(
      `input ${values.input}: ${e.detail.map((i) => `${i.field}: ${i.message}`).join('; ')}`,
    );
  }

  const bundle = await loadPolicyBundle(dir);
  if (bundle.isErr()) throw new UsageError(describe(bundle.error));
  const invalid = bundle.value.errors.filter((e) => e.kind === 'invalid');
  if (invalid.length > 0) {
    throw new UsageError(
      `${invalid.length} policy file(s) are invalid (run agentgov policy validate ${dir}): ${invalid.map((e) => `${e.file}: ${e.message}`).join('; ')}`,
    );
  }
  const tenantId = bundle.value.tenantId;
  const userId = values.user;
  if (userId !== undefined && !(await bundle.value.directory.users(tenantId)).includes(userId)) {
    throw new UsageError(`unknown user '${userId}' in tenant '${tenantId}' (see ${dir}/directory.yaml)`);
  }
  const { engine } = await bundleEngine(bundle.value);
  // Without --user the enterprise's effective policy, asked for explicitly (an engine refuses a
  // request that names neither).
  const request = {
    domain,
    tenantId,
    input: input.data,
    ...(userId ? { userId } : { scope: 'enterprise' }),
  } as DecisionRequest;
  const decision = await engine.decide(request);
  if (decision.isErr()) throw new UsageError(decision.error.message);
  io.stdout(`${JSON.stringify(decision.value, null, 2)}\n`);
  return values['fail-on-deny'] && !decision.value.allow ? EXIT.findings : EXIT.ok;
}

function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      domain: { type: 'string' },
      input: { type: 'string' },
      user: { type: 'string' },
      'fail-on-deny': { type: 'boolean' },
    },
  });
}
