import type { ServedSnapshot } from "../console-snapshot.js";
import { type Html, html } from "../html.js";
import { badge } from "./page-layout.js";

function card(label: string, figure: Html | string, detail: Html | string): Html {
  return html`<div class="card"><div class="muted">${label}</div><div class="figure">${figure}</div><div>${detail}</div></div>`;
}

/** The cluster at a glance, and what `navique doctor` finds blocking, causes first. */
export function overviewPage(snapshot: ServedSnapshot): Html {
  const { status, doctor, settings } = snapshot;
  const resources = status.resources;
  const ready = resources.filter((r) => r.ready === "True").length;
  const states = (state: string) => status.capabilities.filter((c) => c.state === state).length;
  const leader = status.operator.lease;
  return html`
${settings.refused ? html`<p class="notice">The ManagementPlane's spec is refused (${settings.refused}); the console applies the defaults.</p>` : ""}
${settings.stored ? "" : html`<p class="notice">The cluster holds no ManagementPlane navique: the console applies the defaults. The operator chart creates one.</p>`}
<div class="cards">
${card("Resources Ready", `${ready} / ${resources.length}`, resources.length === ready ? badge("all Ready", "good") : badge(`${resources.length - ready} not Ready`, "bad"))}
${card("Capabilities", `${states("Owned")} owned · ${states("Adopted")} adopted`, `${states("Absent")} absent of ${status.capabilities.length}`)}
${card("Licence", status.licence.edition, status.licence.expiresAt ? `expires ${status.licence.expiresAt}` : (status.licence.reason ?? "no expiry"))}
${card("Cluster", status.cluster.kubernetesVersion ?? "version unknown", `${status.cluster.nodes.ready} / ${status.cluster.nodes.total} nodes Ready`)}
${card("Operator", leader.live ? badge("leading", "good") : badge("no live leader", "bad"), leader.holder ?? `Lease ${leader.namespace}/${leader.name} ${leader.exists ? "not renewed" : "absent"}`)}
${card("CRDs", `${status.cluster.crds.expected.length - status.cluster.crds.missing.length} / ${status.cluster.crds.expected.length}`, status.cluster.crds.missing.length === 0 ? "all served" : `missing: ${status.cluster.crds.missing.join(", ")}`)}
</div>
<h2>What blocks what</h2>
${
  doctor.findings.length === 0
    ? html`<p>${badge("No finding", "good")} Nothing blocks anything: navique doctor would say the same.</p>`
    : doctor.findings.map(
        (f) => html`<div class="finding"><strong>${f.subject}</strong>: ${f.problem}
${f.blockedBy.length > 0 ? html`<div class="muted">waits on ${f.blockedBy.join(", ")}</div>` : ""}
${f.blocks.length > 0 ? html`<div class="muted">holds up ${f.blocks.join(", ")}</div>` : ""}
<div>Fix: ${f.fix}</div></div>`,
      )
}`;
}
