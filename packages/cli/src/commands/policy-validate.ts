/**
 * `agentgov policy validate DIR [--json] [--strict]`: validates a policy directory (directory.yaml +
 * policies/**\/*.yaml) against the hierarchy. Exit 0 valid, 1 violations (or policies targeting
 * unknown nodes; with `--strict`, warnings too), 2 unreadable input (missing files, malformed YAML,
 * schema errors). Warnings (a feature-flag name no engine asks about, with the nearest known
 * name) are printed on stderr and listed in the JSON report's `warnings`.
 */
import { parseArgs } from 'node:util';
import { type BundleReport, loadPolicyBundle, validateBundle } from '@agentgov/policy';
import { type CliIo, EXIT, parseUsage, UsageError } from '../io';
import { describe } from './policy-common';

const show = (v: unknown): string => (Array.isArray(v) ? `[${v.join(', ')}]` : JSON.stringify(v));

function human(dir: string, policies: number, report: BundleReport, strict: boolean): string {
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
  for (const w of report.warnings) lines.push(`${w.file}: warning: ${w.field}: ${w.message}`);
  const summary = report.valid
    ? `${dir}: ${policies} policies valid${report.warnings.length > 0 ? `, ${report.warnings.length} warning(s)${strict ? ' (--strict: failing)' : ''}` : ''}`
    : `${dir}: ${report.violations.length} violation(s), ${report.errors.length} error(s) in ${policies + report.errors.filter((e) => e.kind === 'invalid').length} file(s)`;
  return `${[...lines, summary].join('\n')}\n`;
}

const USAGE = 'usage: agentgov policy validate DIR [--json] [--strict]';

export default async function policyValidate(args: string[], io: CliIo): Promise<number> {
  const parsed = parseUsage(parse, args, USAGE);
  const dir = parsed.positionals[0];
  if (!dir || parsed.positionals.length > 1) throw new UsageError(USAGE);
  const json = parsed.values.json === true;
  const strict = parsed.values.strict === true;

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
    const passed = report.valid && !(strict && report.warnings.length > 0);
    const text = human(dir, bundle.value.policies.length, report, strict);
    if (passed && report.warnings.length === 0) io.stdout(text);
    else if (passed) {
      // Warnings on stderr, the summary on stdout (as for a clean directory).
      const lines = text.trimEnd().split('\n');
      io.stderr(`${lines.slice(0, -1).join('\n')}\n`);
      io.stdout(`${lines.at(-1)}\n`);
    } else io.stderr(text);
  }
  if (unreadable) return EXIT.usage;
  if (!report.valid) return EXIT.findings;
  return strict && report.warnings.length > 0 ? EXIT.findings : EXIT.ok;
}

function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: { json: { type: 'boolean' }, strict: { type: 'boolean' } },
  });
}
