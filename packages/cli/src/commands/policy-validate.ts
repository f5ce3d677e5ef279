/**
 * `agentgov policy validate DIR [--json]`: validates a policy directory (directory.yaml +
 * policies/**\/*.yaml) against the hierarchy. Exit 0 valid, 1 violations (or policies targeting
 * unknown nodes), 2 unreadable input (missing files, malformed YAML, schema errors).
 */
import { parseArgs } from 'node:util';
import { type BundleReport, loadPolicyBundle, validateBundle } from '@agentgov/policy';
import { type CliIo, EXIT, parseUsage, UsageError } from '../io';
import { describe } from './policy-common';

const show = (v: unknown): string => (Array.isArray(v) ? `[${v.join(', ')}]` : JSON.stringify(v));

function human(dir: string, policies: number, report: BundleReport): string {
  const lines: string[] = [];
  for (const e of report.errors) {
    lines.push(`${e.file}: ${e.kind === 'invalid' ? 'invalid policy' : 'unknown target'}: ${e.message}`);
    for (const issue of e.issues?.slice(1) ?? []) lines.push(`  ${issue.field}: ${issue.message}`);
  }
  for (const v of report.violations) {
    lines.push(
      `${v.file}: ${v.key} = ${show(v.value)} at ${v.scope} '${v.scopeId}' exceeds ${show(v.parentValue)} of ${v.parentScope} '${v.parentScopeId}'`,
      `  ${v.reason}`,
    );
  }
  const summary = report.valid
    ? `${dir}: ${policies} policies valid`
    : `${dir}: ${report.violations.length} violation(s), ${report.errors.length} error(s) in ${policies + report.errors.filter((e) => e.kind === 'invalid').length} file(s)`;
  return `${[...lines, summary].join('\n')}\n`;
}

const USAGE = 'usage: agentgov policy validate DIR [--json]';

export default async function policyValidate(args: string[], io: CliIo): Promise<number> {
  const parsed = parseUsage(parse, args, USAGE);
  const dir = parsed.positionals[0];
  if (!dir || parsed.positionals.length > 1) throw new UsageError(USAGE);
  const json = parsed.values.json === true;

  const bundle = await loadPolicyBundle(dir);
  if (bundle.isErr()) {
    if (json) {
      io.stdout(
        `${JSON.stringify({ valid: false, violations: [], errors: [{ file: 'directory.yaml', kind: 'invalid', message: describe(bundle.error) }] })}\n`,
      );
    }
    throw new UsageError(describe(bundle.error));
  }
  const report = await validateBundle(bundle.value);
  const unreadable = report.errors.some((e) => e.kind === 'invalid');
  if (json) {
    io.stdout(`${JSON.stringify(report)}\n`);
  } else {
    (report.valid ? io.stdout : io.stderr)(human(dir, bundle.value.policies.length, report));
  }
  if (unreadable) return EXIT.usage;
  return report.valid ? EXIT.ok : EXIT.findings;
}

function parse(args: string[]) {
  return parseArgs({ args, allowPositionals: true, strict: true, options: { json: { type: 'boolean' } } });
}
