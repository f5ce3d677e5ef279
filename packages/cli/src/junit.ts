/**
 * JUnit XML (the de-facto schema CI systems read: Jenkins, GitLab, GitHub test reporters):
 * `<testsuites>` → one `<testsuite>` per test file → one `<testcase>` per test, with a
 * `<failure>` when the expectation did not hold.
 */

interface JunitCase {
  name: string;
  /** Seconds. */
  time: number;
  /** Absent when the case passed. */
  failure?: { message: string; detail: string };
}

export interface JunitSuite {
  name: string;
  cases: JunitCase[];
}

/** XML 1.0 text: escapes markup characters and drops characters XML cannot carry. */
function xmlEscape(text: string): string {
  return text
    .replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const seconds = (n: number): string => n.toFixed(3);

export function junitXml(name: string, suites: readonly JunitSuite[]): string {
  const count = (s: readonly JunitCase[]) => ({
    tests: s.length,
    failures: s.filter((c) => c.failure).length,
  });
  const all = suites.flatMap((s) => s.cases);
  const total = count(all);
  const time = all.reduce((t, c) => t + c.time, 0);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlEscape(name)}" tests="${total.tests}" failures="${total.failures}" errors="0" time="${seconds(time)}">`,
  ];
  for (const suite of suites) {
    const c = count(suite.cases);
    const suiteTime = suite.cases.reduce((t, x) => t + x.time, 0);
    lines.push(
      `  <testsuite name="${xmlEscape(suite.name)}" tests="${c.tests}" failures="${c.failures}" errors="0" skipped="0" time="${seconds(suiteTime)}">`,
    );
    for (const tc of suite.cases) {
      const open = `    <testcase classname="${xmlEscape(suite.name)}" name="${xmlEscape(tc.name)}" time="${seconds(tc.time)}"`;
      if (!tc.failure) {
        lines.push(`${open}/>`);
        continue;
      }
      lines.push(
        `${open}>`,
        `      <failure message="${xmlEscape(tc.failure.message)}" type="AssertionError">${xmlEscape(tc.failure.detail)}</failure>`,
        '    </testcase>',
      );
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>');
  return `${lines.join('\n')}\n`;
}
