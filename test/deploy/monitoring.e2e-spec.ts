import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROOT, run } from '../support/processes';

/**
 * The monitoring that ships with the service (deploy/monitoring), checked by Prometheus's own
 * tool: the scrape configuration, the recording and alerting rules, and their unit tests
 * (`promtool test rules`), with every alert both fired and kept quiet. The live side — a real
 * Prometheus scraping running processes, every dashboard and recording-rule expression returning
 * data — is test/deploy/monitoring-live.e2e-spec.ts.
 */
const MONITORING = join(ROOT, 'deploy/monitoring');
const RULE_FILES = readdirSync(join(MONITORING, 'rules'))
  .filter((f) => f.endsWith('.yml'))
  .map((f) => join(MONITORING, 'rules', f));
const TEST_FILES = readdirSync(join(MONITORING, 'tests'))
  .filter((f) => f.endsWith('.test.yml'))
  .map((f) => join(MONITORING, 'tests', f));

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface AlertTest {
  alertname: string;
  exp_alerts?: unknown[];
}

const rules: Rule[] = RULE_FILES.flatMap((f) =>
  (parse(readFileSync(f, 'utf8')) as { groups: { rules: Rule[] }[] }).groups.flatMap((g) => g.rules),
);
const alerts = rules.filter((r) => r.alert);
const alertTests: AlertTest[] = TEST_FILES.flatMap((f) =>
  (parse(readFileSync(f, 'utf8')) as { tests: { alert_rule_test?: AlertTest[] }[] }).tests.flatMap((t) => t.alert_rule_test ?? []),
);

const promtool = (...args: string[]) => run('promtool', args);

describe('the monitoring rules (deploy/monitoring)', () => {
  it('the Prometheus configuration and its rule files are valid (promtool check config)', async () => {
    const checked = await promtool('check', 'config', join(MONITORING, 'prometheus.yml'));
    expect({ code: checked.code, out: checked.stdout + checked.stderr }).toEqual({ code: 0, out: expect.stringContaining('SUCCESS') });
    // It loads the rules it ships next to it.
    for (const f of RULE_FILES) expect(checked.stdout + checked.stderr).toContain(f.slice(MONITORING.length + 1));
  });

  it('the recording and alerting rules are valid (promtool check rules)', async () => {
    const checked = await promtool('check', 'rules', ...RULE_FILES);
    expect({ code: checked.code, out: checked.stdout + checked.stderr }).toEqual({ code: 0, out: expect.not.stringContaining('FAILED') });
    expect(alerts.length).toBeGreaterThanOrEqual(20);
    expect(rules.filter((r) => r.record).length).toBeGreaterThanOrEqual(10);
  });

  it('every alert passes its unit tests (promtool test rules)', async () => {
    const tested = await promtool('test', 'rules', ...TEST_FILES);
    expect({ code: tested.code, out: tested.stdout + tested.stderr }).toEqual({ code: 0, out: expect.not.stringContaining('FAILED') });
  });

  it('every alert is tested both firing and not firing', () => {
    const untested = alerts
      .map((a) => a.alert!)
      .filter((name) => {
        const cases = alertTests.filter((t) => t.alertname === name);
        return !cases.some((t) => (t.exp_alerts ?? []).length > 0) || !cases.some((t) => (t.exp_alerts ?? []).length === 0);
      });
    expect(untested).toEqual([]);
    // And no test names an alert that does not exist (it would pass, testing nothing).
    expect([...new Set(alertTests.map((t) => t.alertname))].filter((n) => !alerts.some((a) => a.alert === n))).toEqual([]);
  });

  it('every alert has a severity, a summary, a description and a runbook line, also in docs/operations.md', () => {
    const docs = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8');
    for (const a of alerts) {
      expect({ alert: a.alert, severity: a.labels?.severity }).toEqual({
        alert: a.alert,
        severity: expect.stringMatching(/^(critical|warning|info)$/),
      });
      expect(Object.keys(a.annotations ?? {}).sort()).toEqual(['description', 'runbook', 'summary']);
      // One table row per alert in the runbook: its name, then what to check first.
      expect({ alert: a.alert, documented: new RegExp(`^\\| \`${a.alert}\` \\|.+\\|.+\\|$`, 'm').test(docs) }).toEqual({
        alert: a.alert,
        documented: true,
      });
    }
  });

  it('the committed Grafana dashboard is the rendering of dashboard.js', () => {
    const { render } = require('../../deploy/monitoring/grafana/dashboard.js') as { render(): string };
    expect(readFileSync(join(MONITORING, 'grafana/scene-studio-fleet.json'), 'utf8')).toBe(render());
  });

  it('the unit tests fail when a rule is wrong (so the test above can fail)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ss-promtool-'));
    try {
      cpSync(MONITORING, dir, { recursive: true });
      const file = join(dir, 'rules/scene-studio-alerts.yml');
      const original = readFileSync(file, 'utf8');
      const broken = original.replace(
        'scene_studio:generation_failures:ratio_rate15m > 0.1',
        'scene_studio:generation_failures:ratio_rate15m > 0.5',
      );
      expect(broken).not.toBe(original);
      writeFileSync(file, broken);
      const tested = await promtool('test', 'rules', ...TEST_FILES.map((f) => join(dir, 'tests', f.slice(f.lastIndexOf('/') + 1))));
      expect(tested.code).not.toBe(0);
      expect(tested.stdout + tested.stderr).toContain('alertname: SceneStudioGenerationFailureRateHigh');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
