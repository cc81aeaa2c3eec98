import { Chart, Testing } from "cdk8s";
import { stringify } from "yaml";
import { OPERATOR_NAME } from "../lib/api/group.js";
import { crdFiles, GENERATED_HEADER as HEADER } from "../lib/kinds/crd-files.js";
import { NaviqueOperator } from "./navique-operator.js";

// Sentinels replaced by template expressions: the chart renders what the NaviqueOperator construct does.
const IMAGE = "__NAVIQUE_IMAGE__";
const RESYNC = "__NAVIQUE_RESYNC__";
const CHART_SOURCE = "__NAVIQUE_CHART_SOURCE__";
const WATCH_NAMESPACES = "navique-watch-namespaces-sentinel";

/**
 * The operator's Helm chart, path → text: Chart.yaml, values.yaml, the CRDs in crds/, and the
 * namespace, RBAC and Deployment of the NaviqueOperator construct as one template.
 */
export function operatorChartFiles(version: string): Map<string, string> {
  const chart = new Chart(Testing.app(), "operator-chart", { disableResourceNameHashes: true });
  new NaviqueOperator(chart, "operator", {
    image: IMAGE,
    chartSource: CHART_SOURCE,
    watchNamespaces: [WATCH_NAMESPACES],
  });
  const objects = (
    chart.toJson() as { kind: string; spec?: { template?: { spec?: { containers?: { args?: string[] }[] } } } }[]
  ).filter(
    // CRDs go to crds/; the namespace is helm's (--create-namespace), not a template.
    (o) => o.kind !== "CustomResourceDefinition" && o.kind !== "Namespace",
  );
  for (const object of objects) {
    const container = object.spec?.template?.spec?.containers?.[0];
    if (container?.args) container.args = container.args.map((arg) => (arg === "30" ? RESYNC : arg));
  }
  const template = objects
    .map((o) => stringify(o, { lineWidth: 0 }))
    .join("---\n")
    .replace(IMAGE, "{{ .Values.image | quote }}")
    .replace(RESYNC, "{{ .Values.resyncSeconds | quote }}")
    .replace(CHART_SOURCE, "{{ .Values.chartSource | quote }}")
    // An empty value serves every namespace (the operator reads an empty list so).
    .replace(WATCH_NAMESPACES, '{{ join "," .Values.watchNamespaces | quote }}');
  const files = new Map<string, string>();
  files.set(
    "Chart.yaml",
    `${HEADER}apiVersion: v2\nname: ${OPERATOR_NAME}\ndescription: The navique ai-core operator, its CRDs and permissions.\ntype: application\nversion: ${version}\nappVersion: "${version}"\n`,
  );
  files.set(
    "values.yaml",
    `${HEADER}# Operator image.\nimage: ghcr.io/navique/${OPERATOR_NAME}:${version}\n# Seconds between full resyncs.\nresyncSeconds: 30\n# Where capability charts come from: official, dir:PATH or oci://REGISTRY.\nchartSource: official\n# Namespaces the operator serves (every namespace adopted from must be among them); empty: every namespace.\nwatchNamespaces: []\n`,
  );
  files.set("templates/operator.yaml", `${HEADER}${template}`);
  for (const [name, text] of crdFiles()) files.set(`crds/${name}`, text);
  return files;
}
