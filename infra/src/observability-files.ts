// Reading the files of infra/observability for their checks: the alert rules and the Grafana
// dashboard, each PromQL expression parsed with the Prometheus project's own PromQL grammar
// (@prometheus-io/lezer-promql), and the metric names each one reads. Used by the unit test of
// the files and by the metrics test, which compares the names with what a running platform
// exports. Test tooling: the `./observability` entry, never the package's main one.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parser } from '@prometheus-io/lezer-promql';
import { parse as parseYaml } from 'yaml';

export const OBSERVABILITY_DIR = fileURLToPath(new URL('../observability/', import.meta.url));

export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface RuleFile {
  groups: Array<{ name: string; rules: AlertRule[] }>;
}

export interface DashboardQuery {
  panel: string;
  expr: string;
}

export function readRuleFile(file = `${OBSERVABILITY_DIR}prometheus-alerts.yml`): RuleFile {
  return parseYaml(readFileSync(file, 'utf8')) as RuleFile;
}

export function readPrometheusConfig(file = `${OBSERVABILITY_DIR}prometheus.yml`): Record<string, unknown> {
  return parseYaml(readFileSync(file, 'utf8')) as Record<string, unknown>;
}

interface Panel {
  title?: string;
  type?: string;
  panels?: Panel[];
  targets?: Array<{ expr?: string }>;
}

export function readDashboard(file = `${OBSERVABILITY_DIR}grafana-dashboard.json`): Record<
  string,
  unknown
> & {
  panels: Panel[];
} {
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown> & { panels: Panel[] };
}

/** Every query of every panel (rows' panels included). */
export function dashboardQueries(dashboard: { panels: Panel[] }): DashboardQuery[] {
  const queries: DashboardQuery[] = [];
  const visit = (panels: readonly Panel[]) => {
    for (const p of panels) {
      for (const t of p.targets ?? []) if (t.expr) queries.push({ panel: p.title ?? '', expr: t.expr });
      visit(p.panels ?? []);
    }
  };
  visit(dashboard.panels);
  return queries;
}

/** Grafana's variables replaced by values PromQL accepts, as Grafana does before it queries. */
export function withoutGrafanaVariables(expr: string): string {
  return expr.replace(/\$__rate_interval|\$__interval|\$__range/g, '5m').replace(/\$\{?\w+\}?/g, 'x');
}

/** Where the PromQL grammar finds no valid expression (empty: it parses). */
export function promqlProblems(expr: string): string[] {
  const problems: string[] = [];
  parser.parse(expr).iterate({
    enter(node) {
      if (node.type.isError)
        problems.push(
          `syntax error at ${node.from}: ${JSON.stringify(expr.slice(node.from, node.from + 20))}`,
        );
    },
  });
  return problems;
}

/** The metric names an expression selects. */
export function metricNamesOf(expr: string): string[] {
  const names = new Set<string>();
  parser.parse(expr).iterate({
    enter(node) {
      if (node.name === 'Identifier' && node.node.parent?.name === 'VectorSelector') {
        names.add(expr.slice(node.from, node.to));
      }
    },
  });
  return [...names];
}

/** Every expression of the rule file and the dashboard, named for a failure message. */
export function observabilityQueries(): Array<{ where: string; expr: string }> {
  const rules = readRuleFile().groups.flatMap((g) =>
    g.rules.map((r) => ({ where: `alert ${r.alert}`, expr: r.expr })),
  );
  const panels = dashboardQueries(readDashboard()).map((q) => ({
    where: `panel "${q.panel}"`,
    expr: withoutGrafanaVariables(q.expr),
  }));
  return [...rules, ...panels];
}
