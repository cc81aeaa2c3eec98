/**
 * The operator's HTTP servers as its pod declares them (docs/operator.md): the container ports, named
 * as the chart's Service, probes and ServiceMonitor refer to them, and the paths the kubelet probes. The
 * numbers are `navique operator`'s defaults for `--metrics-bind-address` and `--health-probe-bind-address`,
 * controller-runtime's customary 8080 and 8081; the chart and the NaviqueOperator construct pass them
 * explicitly, so that the pod's ports hold whatever the command's defaults become.
 */
export const OPERATOR_PORTS = {
  metrics: { name: "metrics", port: 8080 },
  health: { name: "health", port: 8081 },
  console: { name: "console", port: 8082 },
} as const;

/** Where the kubelet asks whether the process lives (restarted when not) and whether its caches are synced. */
export const OPERATOR_PROBE_PATHS = { liveness: "/healthz", readiness: "/readyz" } as const;

/** Where Prometheus scrapes the operator. */
export const OPERATOR_METRICS_PATH = "/metrics";
